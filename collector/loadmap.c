/* loadmap.c - the modules mapped into the process, over time.
 *
 * Samples store frames as (module id, address within the module's ELF
 * image), so that an address stays meaningful after its library is
 * unloaded and another is mapped in its place.  This file keeps:
 *   - the module records: path, build-id, segments, load and unload times
 *     (written to the process file's MODS section);
 *   - an index of the executable ranges of the modules mapped now, which
 *     the signal handler searches.  There are two copies: an update
 *     writes the one not in use and then publishes it, so a handler that
 *     interrupts an update (in another thread, or in its own, in the
 *     middle of dlclose's refresh) still finds every module mapped before
 *     it.  A sequence counter says which copy is current and lets a
 *     reader see that its copy was rewritten while it read.
 *
 * We do not wrap dlopen(): glibc searches the *caller's* RPATH/RUNPATH, and
 * a wrapper would make us the caller.  Instead the map is refreshed when a
 * sampled address falls outside every known module (dl_iterate_phdr's
 * load/unload counters make the no-change case cheap), after dlclose(),
 * and before the map is written.  Refreshing reads only the loader's list
 * and mapped ELF headers and allocates from our own mappings, so it is
 * async-signal-safe.
 *
 * But glibc's dl_iterate_phdr takes the loader's list lock, and a handler
 * that interrupts the very instructions that take or release it (in
 * dlopen, dlclose or another dl_iterate_phdr) and calls it again waits
 * for itself forever: the lock is recursive, but only once its owner is
 * set.  Those instructions are in libc and the loader.  libunwind calls
 * dl_iterate_phdr to find each frame's unwind tables, so we interpose it:
 * called from a sample handler that interrupted libc or the loader, it
 * iterates this file's records of the modules mapped now, without a lock,
 * and the handler does not refresh those records.  Elsewhere it is
 * glibc's.
 */
#define _GNU_SOURCE
#include "collector.h"
#include "mfile_write.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <sched.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#define MAX_MODULES 4096
#define MAX_SEGMENTS 8
#define PATH_POOL_SIZE (1u << 20)

struct module {
	uint32_t flags;			/* MFILE_MOD_* */
	int live;			/* mapped now */
	int seen;			/* scratch for refresh */
	uintptr_t bias;			/* dlpi_addr */
	const void *phdr;		/* dlpi_phdr: identifies this load */
	uint16_t phnum;			/* dlpi_phnum */
	int locks_loader;		/* libc or the loader: may hold its lock */
	uint64_t load_ns, unload_ns;
	uint32_t path_off, path_len;	/* in path_pool */
	unsigned char build_id[64];
	uint32_t build_id_len;
	uint32_t nseg;
	struct {
		uint64_t vaddr, memsz, offset;
		uint32_t flags;
	} seg[MAX_SEGMENTS];
};

struct range {
	uintptr_t start, end;
	uint32_t module;		/* id = index + 1 */
	uintptr_t bias;
};

static struct module *modules;		/* MAX_MODULES records */
static _Atomic uint32_t nmodules;
static char *path_pool;
static uint32_t path_used;
#define MAX_RANGES (2 * MAX_MODULES)
static struct range *ranges[2];		/* MAX_RANGES executable ranges each */
static uint32_t nranges[2];
/* Odd while an update writes the copy not in use.  seq / 2 counts the
 * updates published; copy (seq / 2) % 2 is the current one. */
static _Atomic uint32_t seq;
static _Atomic uint32_t generation;	/* bumped when a module goes away */
static atomic_flag writer = ATOMIC_FLAG_INIT;
static unsigned long long last_adds = ~0ull, last_subs = ~0ull;
static uintptr_t vdso_base;
static uintptr_t self_addr;		/* an address inside this library */
static int full_warned;
typedef int iterate_fn(int (*)(struct dl_phdr_info *, size_t, void *), void *);
static iterate_fn *real_iterate;	/* glibc's dl_iterate_phdr */

/* ---- the index the handler reads -------------------------------------- */

/* async-signal-safe */
uint32_t loadmap_lookup(uintptr_t addr, uint64_t *offset)
{
	for (int attempt = 0; attempt < 3; attempt++) {
		uint32_t s1 = atomic_load_explicit(&seq, memory_order_acquire);
		const struct range *r = ranges[(s1 / 2) % 2];
		uint32_t lo = 0, hi = __atomic_load_n(&nranges[(s1 / 2) % 2], __ATOMIC_RELAXED);
		uint32_t found = 0;
		uint64_t off = 0;
		if (hi > MAX_RANGES)
			hi = MAX_RANGES;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			uintptr_t start = __atomic_load_n(&r[mid].start, __ATOMIC_RELAXED);
			uintptr_t end = __atomic_load_n(&r[mid].end, __ATOMIC_RELAXED);
			if (addr < start) {
				hi = mid;
			} else if (addr >= end) {
				lo = mid + 1;
			} else {
				found = __atomic_load_n(&r[mid].module, __ATOMIC_RELAXED);
				off = addr - __atomic_load_n(&r[mid].bias, __ATOMIC_RELAXED);
				break;
			}
		}
		/* Our copy is rewritten from the second update after the one
		 * that published it: from seq = (s1 & ~1) + 3 on. */
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&seq, memory_order_relaxed) - (s1 & ~1u) < 3) {
			*offset = off;
			return found;
		}
	}
	return 0;
}

uint32_t loadmap_generation(void)
{
	return atomic_load_explicit(&generation, memory_order_relaxed);
}

/* Writes the copy not in use, then publishes it.  The caller holds the
 * writer lock. */
static void rebuild_ranges(void)
{
	uint32_t n = 0, count = atomic_load(&nmodules);
	uint32_t s = atomic_fetch_add_explicit(&seq, 1, memory_order_acq_rel);	/* odd */
	uint32_t copy = (s / 2 + 1) % 2;
	struct range *out = ranges[copy];

	atomic_thread_fence(memory_order_release);
	for (uint32_t m = 0; m < count; m++) {
		const struct module *mod = &modules[m];
		if (!mod->live)
			continue;
		for (uint32_t g = 0; g < mod->nseg && n < MAX_RANGES; g++) {
			if (!(mod->seg[g].flags & PF_X))
				continue;
			struct range r = {
				mod->bias + mod->seg[g].vaddr,
				mod->bias + mod->seg[g].vaddr + mod->seg[g].memsz,
				m + 1, mod->bias
			};
			/* insertion sort by start: few modules, rare updates */
			uint32_t i = n++;
			while (i > 0 && out[i - 1].start > r.start) {
				out[i] = out[i - 1];
				i--;
			}
			out[i] = r;
		}
	}
	__atomic_store_n(&nranges[copy], n, __ATOMIC_RELAXED);
	atomic_fetch_add_explicit(&seq, 1, memory_order_release);	/* even */
}

/* ---- reading modules from the dynamic linker -------------------------- */

/* Stores the concatenation of A, B and C (any may be NULL) in the path
 * pool.  Returns its offset, or UINT32_MAX when the pool is full. */
static uint32_t pool_add(const char *a, const char *b, const char *c)
{
	const char *part[3] = { a, b, c };
	size_t len[3], total = 0;

	for (int i = 0; i < 3; i++)
		total += len[i] = part[i] ? strlen(part[i]) : 0;
	if (path_used + total + 1 > PATH_POOL_SIZE)
		return UINT32_MAX;
	uint32_t off = path_used;
	char *p = path_pool + off;
	for (int i = 0; i < 3; i++) {
		memcpy(p, part[i] ? part[i] : "", len[i]);
		p += len[i];
	}
	*p = 0;
	path_used += (uint32_t)(total + 1);
	return off;
}

static void read_build_id(struct module *m, const struct dl_phdr_info *info)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		const unsigned char *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			size_t name = (nh->n_namesz + 3) & ~3u, desc = (nh->n_descsz + 3) & ~3u;
			const unsigned char *d = p + sizeof *nh + name;
			if (d + desc > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    memcmp(p + sizeof *nh, "GNU", 4) == 0 &&
			    nh->n_descsz <= sizeof m->build_id) {
				memcpy(m->build_id, d, nh->n_descsz);
				m->build_id_len = nh->n_descsz;
				return;
			}
			p = d + desc;
		}
	}
}

static int is_self(const struct dl_phdr_info *info)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && self_addr - start < ph->p_memsz)
			return 1;
	}
	return 0;
}

static void vdso_name(const unsigned char *id, uint32_t len, char *buf, size_t size)
{
	size_t n = culprit_format(buf, size, "vdso-");
	for (uint32_t i = 0; i < len && n + 3 < size; i++)
		n += culprit_format(buf + n, size - n, "%x%x", id[i] >> 4, id[i] & 15);
	culprit_format(buf + n, size - n, ".so");
}

/* Whether the library NAME is libc or the dynamic loader, whose code
 * takes and releases the loader's list lock. */
static int locks_loader(const char *name)
{
	const char *base = name ? strrchr(name, '/') : NULL;
	base = base ? base + 1 : name;
	if (!base)
		return 0;
	return strncmp(base, "libc.so", 7) == 0 || strncmp(base, "ld-linux", 8) == 0 ||
	       strncmp(base, "ld.so", 5) == 0 || strncmp(base, "libpthread.so", 13) == 0;
}

static void add_module(const struct dl_phdr_info *info, int first)
{
	uint32_t count = atomic_load(&nmodules);

	if (count == MAX_MODULES) {
		if (!full_warned++)
			culprit_log("more than %d modules loaded; later ones are not resolved",
				    MAX_MODULES);
		return;
	}
	struct module *m = &modules[count];
	memset(m, 0, sizeof *m);
	m->live = 1;
	m->seen = 1;
	m->bias = info->dlpi_addr;
	m->phdr = info->dlpi_phdr;
	m->phnum = info->dlpi_phnum;
	m->locks_loader = locks_loader(info->dlpi_name);
	m->load_ns = culprit_now_monotonic();
	for (int i = 0; i < info->dlpi_phnum && m->nseg < MAX_SEGMENTS; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		m->seg[m->nseg].vaddr = ph->p_vaddr;
		m->seg[m->nseg].memsz = ph->p_memsz;
		m->seg[m->nseg].offset = ph->p_offset;
		m->seg[m->nseg].flags = ph->p_flags;
		m->nseg++;
	}
	read_build_id(m, info);

	const char *name = info->dlpi_name;
	uint32_t off;
	if (vdso_base &&
	    (uintptr_t)info->dlpi_phdr == vdso_base + ((const ElfW(Ehdr) *)vdso_base)->e_phoff) {
		char buf[160];
		m->flags |= MFILE_MOD_VDSO;
		vdso_name(m->build_id, m->build_id_len, buf, sizeof buf);
		off = pool_add(buf, NULL, NULL);
	} else if (first || !name || !name[0]) {
		m->flags |= first ? MFILE_MOD_MAIN : 0;
		off = pool_add(culprit_process.exe, NULL, NULL);
	} else if (name[0] != '/') {
		/* dlopen("./x.so") keeps the name relative to the cwd of then */
		off = pool_add(culprit_process.cwd, "/", name);
	} else {
		off = pool_add(name, NULL, NULL);
	}
	if (is_self(info))
		m->flags |= MFILE_MOD_COLLECTOR;
	m->path_off = off == UINT32_MAX ? 0 : off;
	m->path_len = off == UINT32_MAX ? 0 : (uint32_t)strlen(path_pool + off);
	atomic_store(&nmodules, count + 1);
}

struct scan {
	int index;
	unsigned long long adds, subs;
	int probe_only;
};

static int scan_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct scan *sc = arg;

	if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs)
		return 1;
	if (sc->index++ == 0) {
		sc->adds = info->dlpi_adds;
		sc->subs = info->dlpi_subs;
		if (sc->probe_only)
			return 1;
	}
	uint32_t count = atomic_load(&nmodules);
	for (uint32_t i = 0; i < count; i++) {
		struct module *m = &modules[i];
		if (m->live && m->bias == info->dlpi_addr && m->phdr == info->dlpi_phdr) {
			m->seen = 1;
			return 0;
		}
	}
	add_module(info, sc->index == 1);
	return 0;
}

static int lock_writer(int from_signal)
{
	for (int spins = 0; atomic_flag_test_and_set_explicit(&writer, memory_order_acquire);
	     spins++) {
		if (from_signal || spins > 100000)
			return 0;
		sched_yield();
	}
	return 1;
}

static void unlock_writer(void)
{
	atomic_flag_clear_explicit(&writer, memory_order_release);
}

/* glibc's dl_iterate_phdr, with the calling thread marked as holding the
 * loader's list lock meanwhile: a sample then must not unwind with
 * libunwind (unwind.c says why).  async-signal-safe when called from a
 * handler that did not interrupt libc or the loader. */
static int iterate_locked(iterate_fn *real, int (*cb)(struct dl_phdr_info *, size_t, void *),
			  void *data)
{
	struct culprit_thread *t = culprit_thread_self();
	if (t)
		t->in_loader_list++;
	int rc = real(cb, data);
	if (t)
		t->in_loader_list--;
	return rc;
}

/* async-signal-safe */
void loadmap_refresh(int from_signal)
{
	if (!modules || !lock_writer(from_signal))
		return;
	struct scan sc = { 0, 0, 0, 1 };
	iterate_locked(real_iterate, scan_cb, &sc);
	if (sc.adds == last_adds && sc.subs == last_subs) {
		unlock_writer();
		return;
	}
	uint32_t count = atomic_load(&nmodules);
	for (uint32_t i = 0; i < count; i++)
		modules[i].seen = 0;
	sc = (struct scan){ 0, 0, 0, 0 };
	iterate_locked(real_iterate, scan_cb, &sc);
	int gone = 0;
	count = atomic_load(&nmodules);
	for (uint32_t i = 0; i < count; i++) {
		if (modules[i].live && !modules[i].seen) {
			modules[i].live = 0;
			modules[i].unload_ns = culprit_now_monotonic();
			gone = 1;
		}
	}
	last_adds = sc.adds;
	last_subs = sc.subs;
	rebuild_ranges();
	if (gone)
		atomic_fetch_add(&generation, 1);
	unlock_writer();
}

/* async-signal-safe */
int loadmap_may_hold_loader_lock(uintptr_t pc)
{
	uint64_t offset;
	uint32_t id = loadmap_lookup(pc, &offset);
	return id && modules[id - 1].locks_loader;
}

/* dl_iterate_phdr over our records of the modules mapped now, for
 * culprit's own callers.  A module unmapped meanwhile can still be
 * listed: its reader's fault guard covers that.  async-signal-safe. */
static int iterate_records(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data)
{
	uint32_t count = atomic_load(&nmodules);
	int rc = 0;
	for (uint32_t i = 0; i < count && rc == 0; i++) {
		const struct module *m = &modules[i];
		if (!m->live || !m->phdr)
			continue;
		struct dl_phdr_info info = {
			.dlpi_addr = m->bias,
			.dlpi_name = (m->flags & MFILE_MOD_MAIN) ? "" : path_pool + m->path_off,
			.dlpi_phdr = m->phdr,
			.dlpi_phnum = m->phnum,
			.dlpi_adds = last_adds,
			.dlpi_subs = last_subs,
		};
		rc = cb(&info, sizeof info, data);
	}
	return rc;
}

EXPORT int dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data)
{
	struct culprit_thread *t = modules ? culprit_thread_self() : NULL;
	if (t && t->sample_pc && loadmap_may_hold_loader_lock(t->sample_pc))
		return iterate_records(cb, data);
	iterate_fn *real = real_iterate ? real_iterate : (iterate_fn *)culprit_real("dl_iterate_phdr");
	return real ? iterate_locked(real, cb, data) : 0;
}

int loadmap_init(void)
{
	modules = culprit_map(MAX_MODULES * sizeof *modules);
	path_pool = culprit_map(PATH_POOL_SIZE);
	ranges[0] = culprit_map(2 * MAX_RANGES * sizeof *ranges[0]);
	ranges[1] = ranges[0] ? ranges[0] + MAX_RANGES : NULL;
	if (!modules || !path_pool || !ranges[0])
		return -1;
	real_iterate = (iterate_fn *)culprit_real("dl_iterate_phdr");
	if (!real_iterate)
		return -1;
	vdso_base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	self_addr = (uintptr_t)&loadmap_init;
	path_used = 1;		/* offset 0 is the empty string */
	loadmap_refresh(0);
	return 0;
}

void loadmap_fork_child(void)
{
	/* Another thread may have held the writer lock or been mid-update
	 * when we forked; in the child nobody is. */
	atomic_flag_clear(&writer);
	/* An update cut short wrote only the copy not in use: drop it. */
	atomic_store(&seq, atomic_load(&seq) & ~1u);
}

/* ---- output -------------------------------------------------------------- */

/* async-signal-safe */
void loadmap_write(struct mfile_writer *w)
{
	/* A refresh cut short by a fatal signal may hold the lock; the
	 * records it has written are complete, so write without it then. */
	int locked = modules && lock_writer(1);
	uint32_t count = modules ? atomic_load(&nmodules) : 0;

	mfile_section_begin(w, MFILE_TAG_MODS);
	mfile_put_u32(w, count);
	for (uint32_t i = 0; i < count; i++) {
		const struct module *m = &modules[i];
		mfile_put_u32(w, i + 1);
		mfile_put_u32(w, m->flags);
		mfile_put_u64(w, m->bias);
		mfile_put_u64(w, m->load_ns);
		mfile_put_u64(w, m->live ? 0 : m->unload_ns);
		mfile_put_str(w, path_pool + m->path_off);
		mfile_put_bytes(w, m->build_id, m->build_id_len);
		mfile_put_u32(w, m->nseg);
		for (uint32_t s = 0; s < m->nseg; s++) {
			mfile_put_u64(w, m->seg[s].vaddr);
			mfile_put_u64(w, m->seg[s].memsz);
			mfile_put_u64(w, m->seg[s].offset);
			mfile_put_u32(w, m->seg[s].flags);
			mfile_put_u32(w, 0);
		}
	}
	mfile_section_end(w);
	if (locked)
		unlock_writer();
}

/* The vdso exists only in memory; keep a copy so that the postmortem can
 * name the functions in it.  Runs once per process, outside signals. */
void loadmap_save_vdso(void)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)vdso_base;
	char name[160], path[PATH_MAX];
	uint32_t count = modules ? atomic_load(&nmodules) : 0;

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return;
	for (uint32_t i = 0; i < count; i++) {
		if (!(modules[i].flags & MFILE_MOD_VDSO))
			continue;
		size_t size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
		const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(vdso_base + eh->e_phoff);
		for (int p = 0; p < eh->e_phnum; p++)
			if (ph[p].p_type == PT_LOAD && ph[p].p_offset + ph[p].p_filesz > size)
				size = ph[p].p_offset + ph[p].p_filesz;
		if (size > 1u << 20)
			return;
		vdso_name(modules[i].build_id, modules[i].build_id_len, name, sizeof name);
		culprit_format(path, sizeof path, "%s/%s", culprit_config.outdir, name);
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			return;	/* EEXIST: another process saved the same vdso */
		const char *p = (const char *)eh;
		while (size > 0) {
			ssize_t r = write(fd, p, size);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			p += r;
			size -= (size_t)r;
		}
		close(fd);
		return;
	}
}
