/* writer.c - turns a thread's tree, or the process's identity and load
 * map, into a measurement file.
 *
 * Async-signal-safe throughout: a program dying of a signal writes its
 * files from the signal handler.  The write buffer is mapped for each
 * file and unmapped after.  File names carry the program's name, pid,
 * exec generation and thread number; a name already taken (pid reuse in a
 * long run) gets a ~N suffix: the name is claimed once with O_EXCL.
 *
 * Every file is written beside its name (NAME.part) and renamed over it,
 * so the name always holds a whole file.  While the program runs, each
 * sampled thread rewrites its file about once a second (a snapshot: a
 * SNAP section, end reason unknown), and so does the process file: a
 * process killed by SIGKILL or the OOM killer keeps what it measured up
 * to then, and its end writes the final files over the snapshots.
 *
 * The process file holds the load map, without which its threads' files
 * cannot be read, and it is written last, when the disk may be full.  So
 * each image sets space aside for it as it starts: a hidden spare file
 * with blocks allocated (fallocate).  Should the process file fail, it
 * is written into the spare, renamed NAME.part, and the spare is gone.
 */
#define _GNU_SOURCE
#include "collector.h"
#include "mfile_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>	/* rename() */
#include <string.h>
#include <unistd.h>

#define WRITE_BUFFER (64 * 1024)
#define SPARE_BYTES (64 * 1024)	/* a process file: 2 KiB, 100 B a module */

static atomic_int warned;

/* The program's name, reduced to characters that are safe in a file name. */
static void program_stem(char *out, size_t size)
{
	const char *base = strrchr(culprit_process.exe, '/');
	size_t n = 0;

	/* An MPI rank's files share the directory with other ranks', on
	 * other hosts whose pids may be the same: the rank comes first,
	 * which is also how its `culprit run` finds its own. */
	if (culprit_process.mpi_rank >= 0)
		n = culprit_format(out, size, "r%d-", (int)culprit_process.mpi_rank);
	base = base ? base + 1 : culprit_process.exe;
	for (size_t k = 0; *base && n + 1 < size && k < 40; base++, k++) {
		char c = *base;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
		out[n++] = ok ? c : '_';
	}
	if (n == 0)
		out[n++] = 'x';
	out[n] = 0;
}

/* The file name STEM.EXT, or STEM~K.EXT for suffix K > 0, into PATH. */
static void file_path(char *path, size_t size, const char *stem, int k, const char *ext)
{
	if (k == 0)
		culprit_format(path, size, "%s/%s.%s", culprit_config.outdir, stem, ext);
	else
		culprit_format(path, size, "%s/%s~%d.%s", culprit_config.outdir, stem, k, ext);
}

/* Claims a free name for STEM.EXT (an empty file, O_EXCL) unless *SUFFIX
 * says one is claimed already (suffix + 1), then opens NAME.part for
 * writing.  The name goes into PATH; close_file renames over it. */
static int open_claimed(struct mfile_writer *w, const char *stem, const char *ext,
			uint32_t kind, void *buf, int *suffix, char *path, int quiet)
{
	char part[PATH_MAX + 8];
	int rc = 0;

	for (int k = 0; *suffix == 0 && k < 100; k++) {
		file_path(path, PATH_MAX, stem, k, ext);
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			close(fd);
			*suffix = k + 1;
		} else if (errno != EEXIST) {
			rc = -errno;
			break;
		}
	}
	if (*suffix == 0 && rc == 0)
		rc = -EEXIST;
	if (rc == 0) {
		file_path(path, PATH_MAX, stem, *suffix - 1, ext);
		culprit_format(part, sizeof part, "%s.part", path);
		unlink(part);	/* a snapshot cut short */
		rc = mfile_writer_open(w, part, kind, buf, WRITE_BUFFER);
	}
	if (rc < 0 && !quiet && atomic_exchange(&warned, 1) == 0)
		culprit_log("cannot write %s: %s (measurements of this %s are lost)",
			    path, strerrordesc_np(-rc), kind == MFILE_PROCESS ? "process" : "thread");
	return rc;
}

/* Completes the file and puts it in place of PATH (see open_claimed);
 * says so if that fails, unless QUIET. */
static int finish_file(struct mfile_writer *w, const char *path, int quiet)
{
	char part[PATH_MAX + 8];
	culprit_format(part, sizeof part, "%s.part", path);
	int rc = mfile_writer_close(w);
	if (rc == 0 && rename(part, path) != 0)
		rc = -errno;

	if (rc < 0) {
		unlink(part);
		if (!quiet && atomic_exchange(&warned, 1) == 0)
			culprit_log("cannot write %s: %s (%s; the program runs on)", path,
				    strerrordesc_np(-rc),
				    access(path, F_OK) == 0 ? "its previous snapshot, if any, stays"
							    : "its measurements are lost");
	}
	return rc;
}

/* The thread's name from /proc: prctl() would give only the caller's. */
static void thread_name(pid_t tid, char *out, size_t size)
{
	char path[64];
	out[0] = 0;
	culprit_format(path, sizeof path, "/proc/self/task/%d/comm", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, out, size - 1);
	close(fd);
	if (n < 0)
		n = 0;
	while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == 0))
		n--;
	out[n] = 0;
}

static void put_counter(struct mfile_writer *w, const char *name, uint64_t v)
{
	mfile_put_str(w, name);
	mfile_put_u64(w, v);
}

/* The SNAP section: the file is a snapshot, written at NOW. */
static void put_snapshot(struct mfile_writer *w, uint64_t now)
{
	mfile_section_begin(w, MFILE_TAG_SNAP);
	mfile_put_u64(w, now);
	mfile_section_end(w);
}

/* ---- a thread file's sections, in the reader's order (mfile_read.c);
 * all async-signal-safe ---- */

/* THRD: who the thread is, and when it began and ended (a snapshot: NOW,
 * its end unknown). */
static void put_thrd(struct mfile_writer *w, const struct culprit_thread *t, uint32_t reason,
		     int snap, uint64_t now)
{
	char name[64];
	thread_name(t->tid, name, sizeof name);
	if (!name[0] && t->name[0])
		culprit_format(name, sizeof name, "%s", t->name);
	mfile_section_begin(w, MFILE_TAG_THRD);
	mfile_put_u64(w, culprit_process.nonce);
	mfile_put_u32(w, (uint32_t)culprit_process.pid);
	mfile_put_u32(w, culprit_process.generation);
	mfile_put_u32(w, t->seq);
	mfile_put_u32(w, (uint32_t)t->tid);
	mfile_put_u64(w, t->start_realtime_ns);
	mfile_put_u64(w, snap ? now : t->end_realtime_ns);
	mfile_put_u32(w, snap ? MFILE_END_UNKNOWN : reason);
	mfile_put_u32(w, 0);
	mfile_put_u32(w, t->creator_seq);
	mfile_put_u32(w, t->creator_node);
	mfile_put_str(w, name);
	mfile_section_end(w);
}

/* COLS: each metric column, by event. */
static void put_cols(struct mfile_writer *w, uint32_t ncols)
{
	mfile_section_begin(w, MFILE_TAG_COLS);
	mfile_put_u32(w, ncols);
	for (uint32_t i = 0; i < ncols; i++) {
		mfile_put_u32(w, i / COLS_PER_EVENT);
		mfile_put_str(w, culprit_column_names[i % COLS_PER_EVENT]);
	}
	mfile_section_end(w);
}

/* CNTR: the thread's counters, the tree's size, and the value its idle
 * samples saw, by event and cause. */
static void put_cntr(struct mfile_writer *w, const struct culprit_thread *t)
{
	const struct cct *c = &t->cct;
	uint32_t nidle = 0;
	for (int e = 0; e < culprit_config.nevents; e++)
		for (int k = 0; k < CULPRIT_IDLE_CAUSES; k++)
			nidle += t->idle_cause_value[e][k] != 0;
	mfile_section_begin(w, MFILE_TAG_CNTR);
	mfile_put_u32(w, CNT_MAX + 2 + (uint32_t)culprit_config.nevents + nidle);
	for (int i = 0; i < CNT_MAX; i++)
		put_counter(w, culprit_counter_names[i], t->counter[i]);
	put_counter(w, "tree:nodes", c->count);
	put_counter(w, "tree:limit", c->limit);
	for (int e = 0; e < culprit_config.nevents; e++) {
		char cname[96];
		culprit_format(cname, sizeof cname, "idle_value:%s", culprit_config.events[e].name);
		put_counter(w, cname, (uint64_t)t->idle_value[e]);
		/* By cause, named as the cause's column: idle_value:EVENT:CAUSE. */
		for (int k = 0; k < CULPRIT_IDLE_CAUSES; k++) {
			if (t->idle_cause_value[e][k] == 0)
				continue;
			culprit_format(cname, sizeof cname, "idle_value:%s:%s",
				       culprit_config.events[e].name,
				       idle_cause((unsigned)k)->name);
			put_counter(w, cname, (uint64_t)t->idle_cause_value[e][k]);
		}
	}
	mfile_section_end(w);
}

/* NODE: the calling-context tree, parents first. */
static void put_node(struct mfile_writer *w, const struct cct *c)
{
	mfile_section_begin(w, MFILE_TAG_NODE);
	mfile_put_u32(w, c->count);
	for (uint32_t id = 0; id < c->count; id++) {
		const struct cct_node *n = cct_node(c, id);
		mfile_put_node(w, id == 0 ? MFILE_NONE : n->parent, n->kind, n->flags, n->module,
			       n->key);
	}
	mfile_section_end(w);
}

/* MTRC: every node's non-zero metrics. */
static void put_mtrc(struct mfile_writer *w, const struct cct *c)
{
	uint32_t ncols = c->ncolumns, nonzero = 0;
	for (uint32_t id = 0; id < c->count; id++)
		for (uint32_t k = 0; k < ncols; k++)
			nonzero += cct_node(c, id)->metric[k] != 0;
	mfile_section_begin(w, MFILE_TAG_MTRC);
	mfile_put_u32(w, nonzero);
	for (uint32_t id = 0; id < c->count; id++) {
		const struct cct_node *n = cct_node(c, id);
		for (uint32_t k = 0; k < ncols; k++) {
			if (n->metric[k] == 0)
				continue;
			mfile_put_value(w, id, k, n->metric[k]);
		}
	}
	mfile_section_end(w);
}

/* NOTE: what the user should know of this thread's measurement, if any. */
static void put_note(struct mfile_writer *w, const struct culprit_thread *t)
{
	const struct cct *c = &t->cct;
	char notes[1 + EVENT_MAX][256];
	uint32_t nnotes = 0;
	if (c->limit_hit)
		culprit_format(notes[nnotes++], sizeof notes[0],
			       "the calling-context tree reached its limit of %u nodes; "
			       "%llu samples were dropped (raise CULPRIT_MAX_NODES)",
			       c->limit, (unsigned long long)t->counter[CNT_DROP_MEMORY]);
	for (int e = 0; e < culprit_config.nevents; e++)
		if (t->fallback_errno[e])
			culprit_format(notes[nnotes++], sizeof notes[0],
				       "%s was sampled with a POSIX CPU-time timer in this thread "
				       "(perf_event_open: %s); its resolution is the kernel tick",
				       culprit_config.events[e].name,
				       strerrordesc_np(t->fallback_errno[e]));
	if (!nnotes)
		return;
	mfile_section_begin(w, MFILE_TAG_NOTE);
	mfile_put_u32(w, nnotes);
	for (uint32_t i = 0; i < nnotes; i++)
		mfile_put_str(w, notes[i]);
	mfile_section_end(w);
}

/* async-signal-safe */
int writer_thread_file(struct culprit_thread *t, uint32_t reason)
{
	struct mfile_writer w;
	char stem[128], prog[48], path[PATH_MAX];
	void *buf = culprit_map(WRITE_BUFFER);

	if (!buf)
		return -1;
	program_stem(prog, sizeof prog);
	culprit_format(stem, sizeof stem, "%s-%d-%u-t%u", prog, (int)culprit_process.pid,
		       culprit_process.generation, t->seq);
	if (open_claimed(&w, stem, "thread", MFILE_THREAD, buf, &t->file_suffix, path, 0) < 0) {
		culprit_unmap(buf, WRITE_BUFFER);
		return -1;
	}
	int snap = reason == WRITER_SNAPSHOT;
	uint64_t now = culprit_now_realtime();
	put_thrd(&w, t, reason, snap, now);
	put_cols(&w, t->cct.ncolumns);
	put_cntr(&w, t);
	put_node(&w, &t->cct);
	put_mtrc(&w, &t->cct);
	waits_write(&w, t);
	tasks_write(&w, t);
	names_write(&w, t);
	trace_write(&w, &t->cct.trace);
	put_note(&w, t);
	if (snap)
		put_snapshot(&w, now);
	int rc = finish_file(&w, path, 0);
	culprit_unmap(buf, WRITE_BUFFER);
	return rc;
}

/* The process file's sections, as it ends for REASON with STATUS, or a
 * snapshot. */
static void put_process(struct mfile_writer *w, uint32_t reason, int status)
{
	struct culprit_process *p = &culprit_process;

	mfile_section_begin(w, MFILE_TAG_IDNT);
	mfile_put_u64(w, p->nonce);
	mfile_put_u32(w, (uint32_t)p->pid);
	mfile_put_u32(w, (uint32_t)p->ppid);
	mfile_put_u32(w, p->generation);
	mfile_put_u32(w, (uint32_t)p->mpi_rank);
	int snap = reason == WRITER_SNAPSHOT;
	uint64_t now = culprit_now_realtime();
	mfile_put_u64(w, p->start_realtime_ns);
	mfile_put_u64(w, p->start_monotonic_ns);
	mfile_put_u64(w, now);
	mfile_put_u64(w, culprit_now_monotonic());
	mfile_put_u32(w, snap ? MFILE_END_UNKNOWN : reason);
	mfile_put_u32(w, snap ? (uint32_t)-1 : (uint32_t)status);
	mfile_put_u32(w, atomic_load(&p->threads_measured));
	mfile_put_str(w, p->host);
	mfile_put_str(w, p->exe);
	mfile_put_str(w, p->cwd);
	mfile_put_str(w, p->rank_source);
	mfile_put_str(w, culprit_config.experiment);
	mfile_section_end(w);

	uint32_t argc = 0;
	for (size_t i = 0; i < p->argv_len; i++)
		argc += p->argv[i] == 0;
	mfile_section_begin(w, MFILE_TAG_ARGV);
	mfile_put_u32(w, argc);
	for (size_t i = 0; i < p->argv_len; i += strlen(p->argv + i) + 1)
		mfile_put_str(w, p->argv + i);
	mfile_section_end(w);

	mfile_section_begin(w, MFILE_TAG_EVNT);
	mfile_put_u32(w, (uint32_t)culprit_config.nevents);
	for (int i = 0; i < culprit_config.nevents; i++) {
		const struct event_spec *e = &culprit_config.events[i];
		mfile_put_str(w, e->name);
		mfile_put_str(w, e->unit);
		mfile_put_u32(w, e->source);
		mfile_put_u32(w, e->flags);
		mfile_put_u64(w, e->period);
		mfile_put_u32(w, e->perf_type);
		mfile_put_u32(w, 0);
		mfile_put_u64(w, e->perf_config);
		mfile_put_u64(w, e->perf_config1);
		mfile_put_u64(w, e->perf_config2);
	}
	mfile_section_end(w);

	loadmap_write(w);
	if (snap)
		put_snapshot(w, now);
}

/* ---- space set aside for the process file -------------------------------- */

/* The spare file's name: hidden, and no measurement file's. */
static void spare_path(char *out, size_t size)
{
	char prog[48];
	program_stem(prog, sizeof prog);
	culprit_format(out, size, "%s/.%s-%d-%u.process.spare", culprit_config.outdir, prog,
		       (int)culprit_process.pid, culprit_process.generation);
}

void writer_reserve(void)
{
	char path[PATH_MAX];
	spare_path(path, sizeof path);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	/* KEEP_SIZE: the file stays empty, its blocks allocated. */
	int ok = fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, SPARE_BYTES) == 0;
	close(fd);
	if (!ok)
		unlink(path);	/* a file system without fallocate: no spare */
	culprit_process.spare = ok;
}

/* Once the process file is written for good, the spare is not needed.
 * async-signal-safe. */
static void drop_spare(void)
{
	char path[PATH_MAX];
	if (!culprit_process.spare)
		return;
	spare_path(path, sizeof path);
	unlink(path);
	culprit_process.spare = 0;
}

/* The process file, through the spare, into PATH: the disk was full.
 * Says what happened.  async-signal-safe. */
static int write_into_spare(void *buf, const char *path, uint32_t reason, int status)
{
	struct mfile_writer w;
	char spare[PATH_MAX], part[PATH_MAX + 8];
	int rc = -ENOENT;
	spare_path(spare, sizeof spare);
	culprit_format(part, sizeof part, "%s.part", path);
	unlink(part);
	if (culprit_process.spare && rename(spare, part) == 0) {
		culprit_process.spare = 0;
		rc = mfile_writer_open_existing(&w, part, MFILE_PROCESS, buf, WRITE_BUFFER);
		if (rc == 0) {
			put_process(&w, reason, status);
			rc = finish_file(&w, path, 1);
		} else {
			unlink(part);
		}
	}
	if (atomic_exchange(&warned, 1) == 0 || rc == 0)
		culprit_log(rc == 0 ? "the disk is full: %s was written into the space set "
				      "aside for it%s"
				    : "cannot write %s: %s (measurements of this process are lost)",
			    path, rc == 0 ? "" : strerrordesc_np(-rc));
	return rc;
}

/* async-signal-safe */
int writer_process_file(uint32_t reason, int status)
{
	struct culprit_process *p = &culprit_process;
	struct mfile_writer w;
	char stem[128], prog[48], path[PATH_MAX];
	void *buf = culprit_map(WRITE_BUFFER);

	if (!buf)
		return -1;
	program_stem(prog, sizeof prog);
	culprit_format(stem, sizeof stem, "%s-%d-%u", prog, (int)p->pid, p->generation);
	/* The spare is for the file at the end: a snapshot that fails
	 * leaves the previous one. */
	int spare = p->spare && reason != WRITER_SNAPSHOT;
	int suffix = atomic_load(&p->file_suffix);
	int rc = open_claimed(&w, stem, "process", MFILE_PROCESS, buf, &suffix, path, spare);
	atomic_store(&p->file_suffix, suffix);
	if (rc == 0) {
		put_process(&w, reason, status);
		rc = finish_file(&w, path, spare);
	}
	if (rc < 0 && suffix && spare)
		rc = write_into_spare(buf, path, reason, status);
	if (reason != WRITER_SNAPSHOT)
		drop_spare();
	culprit_unmap(buf, WRITE_BUFFER);
	return rc < 0 ? -1 : 0;
}

/* The next snapshot after one that took TOOK ns: at the configured
 * interval, but never more than 5% of the time spent writing. */
static uint64_t next_due(uint64_t now, uint64_t took)
{
	uint64_t gap = culprit_config.snapshot_ns;
	if (20 * took > gap)
		gap = 20 * took;
	return now + gap;
}

/* async-signal-safe */
void writer_snapshot(struct culprit_thread *t, uint64_t now)
{
	if (!culprit_config.snapshot_ns || now < t->next_snapshot_ns)
		return;
	if (t->next_snapshot_ns == 0) {	/* its first sample: plan one */
		t->next_snapshot_ns = now + culprit_config.snapshot_ns;
		return;
	}
	struct culprit_process *p = &culprit_process;
	if (atomic_load(&p->finishing))
		return;
	writer_thread_file(t, WRITER_SNAPSHOT);
	uint64_t done = culprit_now_monotonic();
	t->next_snapshot_ns = next_due(done, done - now);
	/* The process file, by one thread at a time. */
	int idle = 0;
	if (done >= atomic_load(&p->next_snapshot_ns) &&
	    atomic_compare_exchange_strong(&p->snapshotting, &idle, 1)) {
		if (!atomic_load(&p->finishing))
			writer_process_file(WRITER_SNAPSHOT, 0);
		uint64_t end = culprit_now_monotonic();
		atomic_store(&p->next_snapshot_ns, next_due(end, end - done));
		atomic_store(&p->snapshotting, 0);
	}
}
