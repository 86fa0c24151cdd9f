/* fixture.c - writes the golden tests' measurement directory.
 *
 * usage: fixture APP LIBOMP DIR
 *
 * Writes, through the collector's own writer (common/mfile_write.c), the
 * files a `culprit run` of the program tests/golden/src/app.c could have
 * written: one process file and three thread files whose trees and values
 * are fixed below, in milliseconds of CPU time.  The addresses are looked
 * up in the committed ELF files APP and LIBOMP (tests/golden/elf/) by
 * function and source line, so that `culprit prof` names every frame the
 * same way on every machine.  Nothing here depends on the time, the host
 * or the compiler that built culprit; only the two paths given are
 * written into the files (tests/run-golden.sh replaces them by @ELF@).
 *
 * The story: main spawns two workers, runs a serial setup while they wait,
 * calls kernel() from a heavy (3/4) and a light (1/4) caller, and recurses
 * (one path cut by the depth limit); it waits for the workers in a library
 * that no longer exists.  Worker 1 runs three times worker 2's share of an
 * imbalanced loop, so worker 2 idles at the barrier; both pay the stub
 * OpenMP runtime's loop scheduling and a tagged scheduler; one of worker 2's
 * samples lost its path (a partial unwind).
 */
#include "mfile_format.h"
#include "mfile_write.h"
#include "varint.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MS 1e6		/* a millisecond of CPU time, in the event's unit (ns) */
#define PID 4242
#define NONCE 0x60d1e4f1c5a7b3e2ull
#define START_REALTIME 1704067200000000000ull	/* 2024-01-01 00:00:00 UTC */
#define START_MONOTONIC 1000000000000ull
#define GONE_PATH "/nonexistent/culprit-golden/libgone.so.1"

/* ---- the fixture ----------------------------------------------------------- */

/* Metric columns: per event, the collector's eight (collector/sample.c). */
enum { SAMPLES, WORK, IDLE, IDLE_SERIAL, IDLE_BARRIER, IDLE_LOCK, IDLE_TASKWAIT, MEASURE,
       PER_EVENT };
static const char *const column_name[PER_EVENT] = {
	"samples", "work", "idleness", "idleness:serial", "idleness:barrier",
	"idleness:lock", "idleness:taskwait", "measurement",
};
#define NEVENTS 2
#define NCOLUMNS (NEVENTS * PER_EVENT)
#define RT PER_EVENT	/* realtime's columns follow cputime's */

/* A path from the thread's root: frames separated by spaces, outermost
 * first, each "FUNCTION:LINE" in the program, "omp/FUNCTION:LINE" in the
 * runtime, "gone+0xADDR" in the missing library, "<truncated>" (a cut in
 * the middle), or, first, "<partial>" (the unwind stopped) or "<ref>"
 * (the thread's creation context in thread 0).  The last frame is the
 * sampled instruction; the others are call sites.  A path without values
 * only makes its nodes. */
struct sample {
	const char *path;
	double v[NCOLUMNS];	/* exclusive values at the path's last frame */
};

struct thread_spec {
	uint32_t seq, tid;
	const char *name;
	const struct sample *samples;
	const char *counters;	/* "name=value ..." */
};

static const struct sample main_thread[] = {
	{ "main:82 spawn_workers:75", { [MEASURE] = 3 * MS } },
	{ "main:81 serial_setup:47",
	  { [SAMPLES] = 200, [WORK] = 200 * MS, [IDLE] = 400 * MS, [IDLE_SERIAL] = 400 * MS,
	    [RT + SAMPLES] = 40, [RT + WORK] = 200 * MS } },
	{ "main:83 heavy_caller:35 kernel:24",
	  { [SAMPLES] = 300, [WORK] = 300 * MS, [RT + SAMPLES] = 60, [RT + WORK] = 300 * MS } },
	{ "main:84 light_caller:40 kernel:24",
	  { [SAMPLES] = 100, [WORK] = 100 * MS, [RT + SAMPLES] = 20, [RT + WORK] = 100 * MS } },
	{ "main:85 recurse:54 recurse:54 recurse:54 recurse:56 kernel:24",
	  { [SAMPLES] = 25, [WORK] = 25 * MS, [RT + SAMPLES] = 5, [RT + WORK] = 25 * MS } },
	{ "main:85 recurse:54 <truncated> recurse:54 recurse:56 kernel:24",
	  { [SAMPLES] = 25, [WORK] = 25 * MS, [RT + SAMPLES] = 5, [RT + WORK] = 25 * MS } },
	{ "main:87 gone+0x2a40", { [RT + SAMPLES] = 80, [RT + WORK] = 400 * MS } },
	{ NULL, { 0 } },
};

static const struct sample worker1[] = {
	{ "<ref> worker:63 omp/__kmpc_for_static_init_4:16 omp/kmp_spin:9",
	  { [SAMPLES] = 4, [WORK] = 4 * MS, [RT + SAMPLES] = 1, [RT + WORK] = 5 * MS } },
	{ "<ref> worker:65 schedule_chunk:3",
	  { [SAMPLES] = 8, [WORK] = 8 * MS, [RT + SAMPLES] = 2, [RT + WORK] = 10 * MS } },
	{ "<ref> worker:66 kernel:24",
	  { [SAMPLES] = 1200, [WORK] = 1200 * MS, [IDLE] = 800 * MS, [IDLE_BARRIER] = 800 * MS,
	    [RT + SAMPLES] = 240, [RT + WORK] = 1200 * MS } },
	{ "<ref> worker:66 kernel:22",
	  { [SAMPLES] = 12, [WORK] = 12 * MS, [RT + SAMPLES] = 2, [RT + WORK] = 10 * MS } },
	{ NULL, { 0 } },
};

static const struct sample worker2[] = {
	{ "<ref> worker:63 omp/__kmpc_for_static_init_4:16 omp/kmp_spin:9",
	  { [SAMPLES] = 4, [WORK] = 4 * MS, [RT + SAMPLES] = 1, [RT + WORK] = 5 * MS } },
	{ "<ref> worker:65 schedule_chunk:3",
	  { [SAMPLES] = 8, [WORK] = 8 * MS, [RT + SAMPLES] = 2, [RT + WORK] = 10 * MS } },
	{ "<ref> worker:66 kernel:24",
	  { [SAMPLES] = 400, [WORK] = 400 * MS, [RT + SAMPLES] = 80, [RT + WORK] = 400 * MS } },
	{ "<ref> worker:68 omp/__kmpc_barrier:22 omp/kmp_spin:10",
	  { [SAMPLES] = 2, [WORK] = 2 * MS, [RT + SAMPLES] = 160, [RT + WORK] = 800 * MS } },
	{ "<partial> kernel:24", { [SAMPLES] = 6, [WORK] = 6 * MS } },
	{ NULL, { 0 } },
};

static const struct thread_spec threads[] = {
	{ 0, PID, "golden", main_thread,
	  "signals=653 samples=650 idle_samples=0 measurement_samples=3 dropped:busy=0 "
	  "dropped:tree_full=0 dropped:no_new_value=0 foreign_signals=0 unwind:partial=0 "
	  "unwind:truncated=25 unwind:faults=0 frames:unknown_module=0 "
	  "collector:handler_ns=1300000 context:captures=2 context:captures_unwound=2 "
	  "tree:limit=1048576 idle_value:cputime=0 idle_value:realtime=0" },
	{ 1, PID + 1, "golden-w1", worker1,
	  "signals=1224 samples=1224 idle_samples=0 measurement_samples=0 dropped:busy=0 "
	  "dropped:tree_full=0 dropped:no_new_value=0 foreign_signals=0 unwind:partial=0 "
	  "unwind:truncated=0 unwind:faults=0 frames:unknown_module=0 "
	  "collector:handler_ns=2448000 context:captures=0 context:captures_unwound=0 "
	  "tree:limit=1048576 idle_value:cputime=0 idle_value:realtime=0" },
	{ 2, PID + 2, "golden-w2", worker2,
	  "signals=1220 samples=420 idle_samples=800 measurement_samples=0 dropped:busy=0 "
	  "dropped:tree_full=0 dropped:no_new_value=0 foreign_signals=0 unwind:partial=6 "
	  "unwind:truncated=0 unwind:faults=0 frames:unknown_module=0 "
	  "collector:handler_ns=840000 context:captures=0 context:captures_unwound=0 "
	  "tree:limit=1048576 idle_value:cputime=800000000 idle_value:realtime=800000000" },
};

/* The creation context of the workers: a node of thread 0's tree. */
static const char creation_path[] = "main:82 spawn_workers:75";

/* ---- the ELF files --------------------------------------------------------- */

enum { MOD_APP = 1, MOD_OMP = 2, MOD_GONE = 3, NMODULES = 3 };

struct elf_file {
	const char *path;
	Elf *elf;
	Dwarf *dw;
	int fd;
};

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "fixture: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static void elf_open(struct elf_file *f, const char *path)
{
	f->path = path;
	elf_version(EV_CURRENT);
	f->fd = open(path, O_RDONLY);
	if (f->fd < 0)
		die("cannot open %s", path);
	f->elf = elf_begin(f->fd, ELF_C_READ, NULL);
	f->dw = f->elf ? dwarf_begin_elf(f->elf, DWARF_C_READ, NULL) : NULL;
	if (!f->dw)
		die("%s has no debug information", path);
}

/* The address range of function NAME in F's symbol table. */
static void elf_function(const struct elf_file *f, const char *name, uint64_t *lo, uint64_t *hi)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			if (gelf_getsym(d, (int)i, &s) && GELF_ST_TYPE(s.st_info) == STT_FUNC &&
			    strcmp(elf_strptr(f->elf, sh.sh_link, s.st_name), name) == 0) {
				*lo = s.st_value;
				*hi = s.st_value + s.st_size;
				return;
			}
		}
	}
	die("%s: no function %s", f->path, name);
}

/* The lowest address in function FN that libdw's lookup, as `culprit
 * prof` makes it, puts on line LINE. */
static uint64_t elf_line(const struct elf_file *f, const char *fn, int line)
{
	uint64_t lo, hi, best = UINT64_MAX;
	elf_function(f, fn, &lo, &hi);
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(f->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t n;
		if (dwarf_offdie(f->dw, off + hsize, &cu) && dwarf_getsrclines(&cu, &lines, &n) == 0) {
			for (size_t i = 0; i < n; i++) {
				Dwarf_Line *l = dwarf_onesrcline(lines, i), *found;
				Dwarf_Addr a;
				int ln;
				if (dwarf_lineaddr(l, &a) || dwarf_lineno(l, &ln) || ln != line ||
				    a < lo || a >= hi || a >= best)
					continue;
				found = dwarf_getsrc_die(&cu, a);
				if (found && !dwarf_lineno(found, &ln) && ln == line)
					best = a;
			}
		}
		off = next;
	}
	if (best == UINT64_MAX)
		die("%s: no address of %s is on line %d", f->path, fn, line);
	return best;
}

/* ---- writing --------------------------------------------------------------- */

static unsigned char buf[1 << 16];

static void writer_open(struct mfile_writer *w, const char *dir, const char *name, uint32_t kind)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (mfile_writer_open(w, path, kind, buf, sizeof buf) < 0)
		die("cannot create %s", path);
}

static void writer_close(struct mfile_writer *w)
{
	if (mfile_writer_close(w) < 0)
		die("writing failed");
}

static void put_module(struct mfile_writer *w, uint32_t id, uint32_t flags, uint64_t bias,
		       uint64_t load_ns, const char *path, Elf *elf)
{
	mfile_put_u32(w, id);
	mfile_put_u32(w, flags);
	mfile_put_u64(w, bias);
	mfile_put_u64(w, load_ns);
	mfile_put_u64(w, 0);
	mfile_put_str(w, path);
	const void *bid = NULL;
	ssize_t blen = elf ? dwelf_elf_gnu_build_id(elf, &bid) : 0;
	mfile_put_bytes(w, bid, blen > 0 ? (uint32_t)blen : 0);
	size_t nph = 0;
	if (elf && elf_getphdrnum(elf, &nph) != 0)
		die("%s: no program headers", path);
	uint32_t nload = 0;
	GElf_Phdr ph;
	for (size_t i = 0; i < nph; i++)
		nload += gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD;
	if (!elf) {	/* the missing library: one executable segment */
		mfile_put_u32(w, 1);
		mfile_put_u64(w, 0);
		mfile_put_u64(w, 0x4000);
		mfile_put_u64(w, 0);
		mfile_put_u32(w, 5);
		mfile_put_u32(w, 0);
		return;
	}
	mfile_put_u32(w, nload);
	for (size_t i = 0; i < nph; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		mfile_put_u64(w, ph.p_vaddr);
		mfile_put_u64(w, ph.p_memsz);
		mfile_put_u64(w, ph.p_offset);
		mfile_put_u32(w, ph.p_flags);
		mfile_put_u32(w, 0);
	}
}

static void write_process(const char *dir, const struct elf_file *app, const struct elf_file *omp)
{
	struct mfile_writer w;
	writer_open(&w, dir, "app-4242-0.process", MFILE_PROCESS);

	mfile_section_begin(&w, MFILE_TAG_IDNT);
	mfile_put_u64(&w, NONCE);
	mfile_put_u32(&w, PID);
	mfile_put_u32(&w, PID - 1);
	mfile_put_u32(&w, 0);
	mfile_put_u32(&w, (uint32_t)-1);
	mfile_put_u64(&w, START_REALTIME);
	mfile_put_u64(&w, START_MONOTONIC);
	mfile_put_u64(&w, START_REALTIME + 1500000000ull);
	mfile_put_u64(&w, START_MONOTONIC + 1500000000ull);
	mfile_put_u32(&w, MFILE_END_EXIT);
	mfile_put_u32(&w, 0);
	mfile_put_u32(&w, 3);
	mfile_put_str(&w, "golden-host");
	mfile_put_str(&w, app->path);
	mfile_put_str(&w, "/golden");
	mfile_put_str(&w, "");
	mfile_put_str(&w, "golden-4241-1704067200");
	mfile_section_end(&w);

	mfile_section_begin(&w, MFILE_TAG_ARGV);
	mfile_put_u32(&w, 2);
	mfile_put_str(&w, "./app");
	mfile_put_str(&w, "--golden");
	mfile_section_end(&w);

	mfile_section_begin(&w, MFILE_TAG_EVNT);
	mfile_put_u32(&w, NEVENTS);
	mfile_put_str(&w, "cputime");
	mfile_put_str(&w, "ns");
	mfile_put_u32(&w, MFILE_SRC_PERF);
	mfile_put_u32(&w, MFILE_EVENT_FREQ);
	mfile_put_u64(&w, 1000);
	mfile_put_u32(&w, 1);
	mfile_put_u32(&w, 0);
	mfile_put_u64(&w, 1);
	mfile_put_u64(&w, 0);
	mfile_put_u64(&w, 0);
	mfile_put_str(&w, "realtime");
	mfile_put_str(&w, "ns");
	mfile_put_u32(&w, MFILE_SRC_REAL_TIMER);
	mfile_put_u32(&w, 0);
	mfile_put_u64(&w, 5000000);
	mfile_put_u32(&w, 0);
	mfile_put_u32(&w, 0);
	mfile_put_u64(&w, 0);
	mfile_put_u64(&w, 0);
	mfile_put_u64(&w, 0);
	mfile_section_end(&w);

	mfile_section_begin(&w, MFILE_TAG_MODS);
	mfile_put_u32(&w, NMODULES);
	put_module(&w, MOD_APP, MFILE_MOD_MAIN, 0x55d0c0de0000ull, START_MONOTONIC + 100000,
		   app->path, app->elf);
	put_module(&w, MOD_OMP, 0, 0x7f0c0de00000ull, START_MONOTONIC + 200000, omp->path,
		   omp->elf);
	put_module(&w, MOD_GONE, 0, 0x7f0c0df00000ull, START_MONOTONIC + 300000, GONE_PATH,
		   NULL);
	mfile_section_end(&w);
	writer_close(&w);
}

/* A thread's tree as it is built: nodes in creation order, parents first. */
struct node {
	uint32_t parent;
	uint8_t kind, flags;
	uint32_t module;
	uint64_t key;
	double v[NCOLUMNS];
};

struct tree {
	struct node n[256];
	uint32_t count;
};

static uint32_t tree_child(struct tree *t, uint32_t parent, uint8_t kind, uint8_t flags,
			   uint32_t module, uint64_t key)
{
	for (uint32_t i = 1; i < t->count; i++) {
		const struct node *c = &t->n[i];
		if (c->parent == parent && c->kind == kind && c->flags == flags &&
		    c->module == module && c->key == key)
			return i;
	}
	if (t->count == sizeof t->n / sizeof t->n[0])
		die("tree full");
	t->n[t->count] = (struct node){ .parent = parent, .kind = kind, .flags = flags,
					.module = module, .key = key };
	return t->count++;
}

/* Adds PATH's nodes to T; returns the last one. */
static uint32_t tree_path(struct tree *t, const char *path, const struct elf_file *app,
			  const struct elf_file *omp, uint64_t ref_key)
{
	char copy[512], *save = NULL;
	uint32_t at = 0;
	snprintf(copy, sizeof copy, "%s", path);
	for (char *tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		int last = !save || !*save;
		uint8_t flags = last ? MFILE_NODE_EXACT : 0;
		char fn[128];
		int line;
		uint64_t addr;
		if (strcmp(tok, "<partial>") == 0 || strcmp(tok, "<truncated>") == 0) {
			at = tree_child(t, at, MFILE_NODE_MARKER, 0, 0,
					tok[1] == 'p' ? MFILE_MARKER_PARTIAL : MFILE_MARKER_TRUNCATED);
		} else if (strcmp(tok, "<ref>") == 0) {
			at = tree_child(t, at, MFILE_NODE_REF, 0, 0, ref_key);
		} else if (sscanf(tok, "gone+%" SCNx64, &addr) == 1) {
			at = tree_child(t, at, MFILE_NODE_FRAME, flags, MOD_GONE,
					last ? addr : addr + 1);
		} else if (sscanf(tok, "omp/%127[^:]:%d", fn, &line) == 2) {
			addr = elf_line(omp, fn, line);
			at = tree_child(t, at, MFILE_NODE_FRAME, flags, MOD_OMP, last ? addr : addr + 1);
		} else if (sscanf(tok, "%127[^:]:%d", fn, &line) == 2) {
			/* A call site's key is a return address: one past the
			 * call, which prof and dump step back into. */
			addr = elf_line(app, fn, line);
			at = tree_child(t, at, MFILE_NODE_FRAME, flags, MOD_APP, last ? addr : addr + 1);
		} else {
			die("bad frame '%s' in '%s'", tok, path);
		}
	}
	return at;
}

static void put_counters(struct mfile_writer *w, const char *spec, uint32_t nodes)
{
	char copy[1024], *save = NULL;
	uint32_t n = 1;
	for (const char *p = spec; *p; p++)
		n += *p == ' ';
	mfile_put_u32(w, n + 1);
	snprintf(copy, sizeof copy, "%s", spec);
	for (char *tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq)
			die("bad counter '%s'", tok);
		*eq = 0;
		mfile_put_str(w, tok);
		mfile_put_u64(w, strtoull(eq + 1, NULL, 10));
	}
	mfile_put_str(w, "tree:nodes");
	mfile_put_u64(w, nodes);
}

/* A TRAC section: a record for each of the thread's samples, at its leaf
 * LEAF[i], 1 ms apart from 10 ms after the start (the second one 3 ms
 * later, so that the gap changes), with two workers working and the
 * others idle; then, for a worker, an idle record at a barrier. */
static void put_trace(struct mfile_writer *w, const struct thread_spec *ts, const uint32_t *leaf,
		      uint32_t n)
{
	unsigned char rec[4096], *p = rec;
	uint64_t records = 0, time = START_MONOTONIC + 10000000ull * (ts->seq + 1), last = time;
	int64_t last_gap = 0;
	uint32_t last_node = 0;
	for (uint32_t i = 0; i <= n; i++, records++) {
		int idle = i == n;
		if (idle && ts->seq == 0)
			break;
		uint64_t now = time + 1000000ull * i + (i >= 1 ? 3000000ull : 0);
		int64_t gap = (int64_t)(now - last);
		unsigned head = idle ? MFILE_TRACE_IDLE + 1 : MFILE_TRACE_WORK;
		unsigned char *h = p++;
		p += varint_put(p, zigzag(gap - last_gap));
		p += varint_put(p, zigzag(i == 0 ? 1000000 : 0));
		if (!idle && leaf[i] != last_node) {
			head |= MFILE_TRACE_HAS_NODE;
			p += varint_put(p, zigzag((int64_t)leaf[i] - (int64_t)last_node));
			last_node = leaf[i];
		}
		if (i == 0 || idle) {
			head |= MFILE_TRACE_HAS_COUNTS;
			p += varint_put(p, idle ? 1 : 2);
			p += varint_put(p, idle ? 2 : 1);
		}
		*h = (unsigned char)head;
		last = now;
		last_gap = gap;
	}
	mfile_section_begin(w, MFILE_TAG_TRAC);
	mfile_put_u64(w, time);
	mfile_put_u64(w, records);
	mfile_put_u64(w, 0);
	mfile_put_u64(w, (uint64_t)(p - rec));
	mfile_put(w, rec, (size_t)(p - rec));
	mfile_section_end(w);
}

static void write_thread(const char *dir, const struct thread_spec *ts, uint32_t creator_node,
			 const struct elf_file *app, const struct elf_file *omp,
			 uint32_t *creation_node)
{
	struct tree *t = calloc(1, sizeof *t);
	struct mfile_writer w;
	char name[64];

	if (!t)
		die("out of memory");
	t->count = 1;
	t->n[0].parent = MFILE_NONE;
	uint32_t leaf[64], nleaves = 0;
	for (const struct sample *s = ts->samples; s->path; s++) {
		uint32_t at = tree_path(t, s->path, app, omp, (uint64_t)0 << 32 | creator_node);
		for (int c = 0; c < NCOLUMNS; c++)
			t->n[at].v[c] += s->v[c];
		if (nleaves < 64)
			leaf[nleaves++] = at;
	}
	if (creation_node)
		*creation_node = tree_path(t, creation_path, app, omp, 0);

	snprintf(name, sizeof name, "app-4242-0-t%u.thread", ts->seq);
	writer_open(&w, dir, name, MFILE_THREAD);
	mfile_section_begin(&w, MFILE_TAG_THRD);
	mfile_put_u64(&w, NONCE);
	mfile_put_u32(&w, PID);
	mfile_put_u32(&w, 0);
	mfile_put_u32(&w, ts->seq);
	mfile_put_u32(&w, ts->tid);
	mfile_put_u64(&w, START_REALTIME + (ts->seq ? 1000000ull : 0));
	mfile_put_u64(&w, START_REALTIME + 1499000000ull);
	mfile_put_u32(&w, ts->seq ? MFILE_END_THREAD_EXIT : MFILE_END_EXIT);
	mfile_put_u32(&w, 0);
	mfile_put_u32(&w, ts->seq ? 0 : MFILE_NONE);
	mfile_put_u32(&w, ts->seq ? creator_node : MFILE_NONE);
	mfile_put_str(&w, ts->name);
	mfile_section_end(&w);

	mfile_section_begin(&w, MFILE_TAG_COLS);
	mfile_put_u32(&w, NCOLUMNS);
	for (uint32_t c = 0; c < NCOLUMNS; c++) {
		mfile_put_u32(&w, c / PER_EVENT);
		mfile_put_str(&w, column_name[c % PER_EVENT]);
	}
	mfile_section_end(&w);

	mfile_section_begin(&w, MFILE_TAG_CNTR);
	put_counters(&w, ts->counters, t->count);
	mfile_section_end(&w);

	mfile_section_begin(&w, MFILE_TAG_NODE);
	mfile_put_u32(&w, t->count);
	for (uint32_t i = 0; i < t->count; i++) {
		const struct node *n = &t->n[i];
		mfile_put_node(&w, n->parent, n->kind, n->flags, n->module, n->key);
	}
	mfile_section_end(&w);

	uint32_t nonzero = 0;
	for (uint32_t i = 0; i < t->count; i++)
		for (int c = 0; c < NCOLUMNS; c++)
			nonzero += t->n[i].v[c] != 0;
	mfile_section_begin(&w, MFILE_TAG_MTRC);
	mfile_put_u32(&w, nonzero);
	for (uint32_t i = 0; i < t->count; i++)
		for (uint32_t c = 0; c < NCOLUMNS; c++)
			if (t->n[i].v[c] != 0) {
				mfile_put_value(&w, i, c, t->n[i].v[c]);
			}
	mfile_section_end(&w);
	put_trace(&w, ts, leaf, nleaves);
	writer_close(&w);
	free(t);
}

int main(int argc, char **argv)
{
	struct elf_file app, omp;
	uint32_t creation = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: fixture APP LIBOMP DIR\n");
		return 2;
	}
	elf_open(&app, argv[1]);
	elf_open(&omp, argv[2]);
	write_process(argv[3], &app, &omp);
	for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++)
		write_thread(argv[3], &threads[i], creation, &app, &omp, i == 0 ? &creation : NULL);
	dwarf_end(app.dw);
	dwarf_end(omp.dw);
	elf_end(app.elf);
	elf_end(omp.elf);
	close(app.fd);
	close(omp.fd);
	return 0;
}
