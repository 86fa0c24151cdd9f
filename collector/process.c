/* process.c - the collector's life in one process image.
 *
 * The constructor reads the configuration `culprit run` left in the
 * environment, records who this process is, installs the signal handlers
 * and starts sampling the main thread.  Without CULPRIT_OUTPUT the library
 * stays inert, so loading it by accident changes nothing.
 *
 * A process image ends in one of a few ways, each of which calls
 * culprit_process_finish(): exit() or a return from main (our destructor),
 * _exit() (interpose_process.c), exec (a new generation follows in the
 * same pid), or a fatal signal (signals.c).  fork() starts a new process
 * in the child (pthread_atfork).
 */
#define _GNU_SOURCE
#include "collector.h"
#include "mpi_rank.h"
#include "real.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

struct culprit_config culprit_config;
struct culprit_process culprit_process;

static uint32_t env_number(const char *name, uint32_t fallback, uint32_t lo, uint32_t hi)
{
	const char *s = getenv(name);
	char *end;

	if (!s || !*s)
		return fallback;
	unsigned long v = strtoul(s, &end, 10);
	if (*end || v < lo || v > hi) {
		culprit_log("ignoring %s=%s: expected a number from %u to %u", name, s, lo, hi);
		return fallback;
	}
	return (uint32_t)v;
}

static int read_config(void)
{
	struct culprit_config *c = &culprit_config;
	const char *out = getenv("CULPRIT_OUTPUT");
	const char *ev = getenv("CULPRIT_EVENTS");
	const char *pre = getenv("CULPRIT_PRELOAD");
	const char *exp = getenv("CULPRIT_EXPERIMENT");

	if (!out || out[0] != '/' || strlen(out) >= sizeof c->outdir)
		return -1;
	strcpy(c->outdir, out);
	if (pre && strlen(pre) < sizeof c->preload)
		strcpy(c->preload, pre);
	if (exp)
		culprit_format(c->experiment, sizeof c->experiment, "%s", exp);
	if (ev) {
		c->nevents = event_spec_decode(ev, c->events, EVENT_MAX);
		if (c->nevents <= 0) {
			culprit_log("CULPRIT_EVENTS is malformed; not profiling this process");
			return -1;
		}
	} else {
		/* Default: CPU time, 1000 samples per second per thread. */
		struct event_spec *e = &c->events[0];
		memset(e, 0, sizeof *e);
		strcpy(e->name, "cputime");
		strcpy(e->unit, "ns");
		e->source = MFILE_SRC_PERF;
		e->perf_type = 1;	/* PERF_TYPE_SOFTWARE */
		e->perf_config = 1;	/* PERF_COUNT_SW_TASK_CLOCK */
		e->period = 1000000;
		c->nevents = 1;
	}
	c->signo = (int)env_number("CULPRIT_SIGNAL", (uint32_t)(SIGRTMIN + 7),
				   (uint32_t)SIGRTMIN, (uint32_t)SIGRTMAX);
	c->max_depth = env_number("CULPRIT_MAX_DEPTH", SETTING_MAX_DEPTH_DEFAULT,
				  SETTING_MAX_DEPTH_MIN, SETTING_MAX_DEPTH_MAX);
	c->max_nodes = env_number("CULPRIT_MAX_NODES", SETTING_MAX_NODES_DEFAULT,
				  SETTING_MAX_NODES_MIN, SETTING_MAX_NODES_MAX);
	/* Measured by culprit run on this machine (driver/sample_lead.c). */
	c->sample_lead_ns = env_number("CULPRIT_SAMPLE_LEAD", 0, 0, 1000000);
	/* Snapshots of the files while the program runs (writer.c). */
	c->snapshot_ns = (uint64_t)env_number("CULPRIT_SNAPSHOT_MS", 1000, 0, 3600000) * 1000000;
	c->trace_bytes = (size_t)env_number("CULPRIT_TRACE_MB", 32, 0, 4096) << 20;
	c->waits = env_number("CULPRIT_WAITS", 1, 0, 1) != 0;
	c->io_idle = env_number("CULPRIT_IO_IDLE", 0, 0, 1) != 0;
	cpu_set_t cpus;
	c->cpus = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? (uint32_t)CPU_COUNT(&cpus) : 0;
	return 0;
}

static void read_file(const char *path, char *buf, size_t size, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;

	if (fd >= 0) {
		ssize_t r;
		while (n + 1 < size && (r = read(fd, buf + n, size - 1 - n)) > 0)
			n += (size_t)r;
		close(fd);
	}
	buf[n] = 0;
	if (n && buf[n - 1] != 0)
		buf[n++] = 0;	/* cut short: terminate the last argument */
	*len = n;
}

static int find_own_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	uintptr_t me = (uintptr_t)&find_own_text;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && me - start < ph->p_memsz) {
			culprit_process.text_start = start;
			culprit_process.text_end = start + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

/* Identity of a fresh process image: after start, fork or a failed exec. */
static void new_identity(uint32_t generation)
{
	struct culprit_process *p = &culprit_process;

	p->pid = culprit_getpid();
	p->ppid = getppid();
	p->generation = generation;
	if (syscall(SYS_getrandom, &p->nonce, sizeof p->nonce, 1 /* GRND_NONBLOCK */) !=
	    (long)sizeof p->nonce)
		p->nonce = culprit_now_monotonic() ^ ((uint64_t)p->pid << 40);
	p->start_realtime_ns = culprit_now_realtime();
	p->start_monotonic_ns = culprit_now_monotonic();
	p->exit_status = -1;
	atomic_store(&p->thread_seq, 1);
	atomic_store(&p->threads_measured, 0);
	atomic_store(&p->finishing, 0);
	atomic_store(&p->finisher, 0);
	atomic_store(&p->finished, 0);
	atomic_store(&p->file_suffix, 0);
	p->spare = 0;
	atomic_store(&p->next_snapshot_ns, culprit_now_monotonic() + culprit_config.snapshot_ns);
	atomic_store(&p->snapshotting, 0);
}

static void init_identity(void)
{
	struct culprit_process *p = &culprit_process;
	struct utsname u;
	uint32_t generation = 0;

	/* exec keeps the pid; our exec wrapper leaves pid:generation behind. */
	const char *image = getenv("CULPRIT_IMAGE");
	if (image) {
		char *end;
		long pid = strtol(image, &end, 10);
		if (*end == ':' && pid == culprit_getpid())
			generation = (uint32_t)strtoul(end + 1, NULL, 10) + 1;
	}
	new_identity(generation);

	const char *rank_variable;
	p->mpi_rank = mpi_rank_from_env(&rank_variable);
	if (p->mpi_rank >= 0)
		culprit_format(p->rank_source, sizeof p->rank_source, "%s", rank_variable);
	read_file("/proc/self/cmdline", p->argv, sizeof p->argv, &p->argv_len);
	if (!getcwd(p->cwd, sizeof p->cwd))
		p->cwd[0] = 0;
	ssize_t n = readlink("/proc/self/exe", p->exe, sizeof p->exe - 1);
	p->exe[n > 0 ? n : 0] = 0;
	if (uname(&u) == 0)
		culprit_format(p->host, sizeof p->host, "%s", u.nodename);
	p->entry = (uintptr_t)getauxval(AT_ENTRY);
	dl_iterate_phdr(find_own_text, NULL);
}

static void fork_child(void)
{
	if (!culprit_config.active)
		return;
	loadmap_fork_child();
	signals_fork_child();
	new_identity(0);
	/* The worker slots first: the forking thread starts afresh and its
	 * plugins declare it again, in a slot of the child's own. */
	workers_fork_child();
	writer_reserve();	/* before sampling starts: a sample here would be
				 * a partial path, under the fork */
	culprit_thread_fork_child();
	plugins_fork_child();
}

__attribute__((constructor)) static void culprit_init(void)
{
	culprit_real_init();	/* before any handler or thread can need one */
	if (read_config() < 0)
		return;
	init_identity();
	culprit_stamp_init();
	culprit_env_save();
	if (loadmap_init() < 0) {
		culprit_log("cannot allocate the load map; not profiling this process");
		return;
	}
	culprit_config.active = 1;
	culprit_unwind_process_init();
	loadmap_save_vdso();
	culprit_thread_process_init();
	if (signals_init() < 0) {
		culprit_config.active = 0;
		return;
	}
	plugins_init();
	pthread_atfork(NULL, NULL, fork_child);
	writer_reserve();	/* before sampling starts (see fork_child) */
	culprit_thread_begin(1, NULL);
}

__attribute__((destructor)) static void culprit_fini(void)
{
	culprit_process_finish(MFILE_END_EXIT, culprit_process.exit_status);
}

int culprit_process_is_self(void)
{
	return culprit_getpid() == culprit_process.pid;
}

void culprit_process_note_exit(int status)
{
	culprit_process.exit_status = status & 0xff;
}

/* Another thread is writing the measurements: two threads crashed at
 * once (common when parallel code goes wrong), or a fatal signal raced
 * exit().  What this thread does next (re-raise its signal, _exit) would
 * end the process under the writer, leaving empty files, so it waits.
 * Not for itself (a fault while finishing), and bounded (60 s) for a
 * writer that is stopped or stuck.  async-signal-safe */
static void wait_for_finisher(void)
{
	if (atomic_load(&culprit_process.finisher) == culprit_gettid())
		return;
	struct timespec ms = { 0, 1000000 };
	for (int i = 0; i < 60000 && !atomic_load(&culprit_process.finished); i++)
		nanosleep(&ms, NULL);
}

/* Signals an instruction raises, which blocking would not hold back. */
static const int faults[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS };

/* async-signal-safe */
void culprit_process_finish(uint32_t reason, int status)
{
	struct culprit_thread *t;

	if (!culprit_config.active)
		return;
	if (!culprit_process_is_self()) {
		/* A child made without fork() (vfork, _Fork, clone) shares or
		 * copied our state without our fork handler; it is not ours
		 * to write. */
		return;
	}
	/* Signals sent to end the process wait until the files are written:
	 * one that came meanwhile (a multiprocessing pool's terminate() as
	 * its worker exits) would find this thread the finisher, and end the
	 * process under it with empty files.  Faults still come through. */
	sigset_t block, old;
	sigfillset(&block);
	for (size_t i = 0; i < sizeof faults / sizeof *faults; i++)
		sigdelset(&block, faults[i]);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &block, &old, (size_t)_NSIG / 8);
	int expected = 0;
	if (!atomic_compare_exchange_strong(&culprit_process.finishing, &expected, 1)) {
		syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, (size_t)_NSIG / 8);
		wait_for_finisher();
		return;
	}
	atomic_store(&culprit_process.finisher, culprit_gettid());
	if (reason != MFILE_END_SIGNAL)
		plugins_fini();

	/* Claim every thread first so that all trees stop changing, then
	 * write them out. */
	for (t = culprit_thread_list(); t; t = t->next) {
		t->finish_owned = culprit_thread_claim(t);
		if (t->finish_owned)
			for (int i = 0; i < culprit_config.nevents; i++)
				source_stop(&t->src[i]);
	}
	for (t = culprit_thread_list(); t; t = t->next)
		if (t->finish_owned)
			culprit_thread_close(t, reason);
	/* A thread that was writing its own file as it ended may still be at
	 * it; the process must not end under it.  Bounded, for a thread that
	 * is stopped or stuck. */
	for (long spins = 0; spins < 200000; spins++) {
		int writing = 0;
		for (t = culprit_thread_list(); t; t = t->next)
			writing |= !t->finish_owned && atomic_load(&t->state) == THREAD_CLOSING &&
				   t != culprit_thread_self();
		if (!writing)
			break;
		sched_yield();
	}
	/* No process snapshot from now on, and none still being written
	 * (bounded: it may be this thread's, cut short by a fatal signal). */
	for (long spins = 0; spins < 200000; spins++) {
		int idle = 0;
		if (atomic_compare_exchange_strong(&culprit_process.snapshotting, &idle, 1))
			break;
		sched_yield();
	}
	loadmap_refresh(1);
	writer_process_file(reason, status);
	atomic_store(&culprit_process.finished, 1);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, (size_t)_NSIG / 8);
}

void culprit_process_before_exec(void)
{
	culprit_process_finish(MFILE_END_EXEC, -1);
}

void culprit_process_after_failed_exec(void)
{
	/* The old image's files are written; carry on as the next one, with
	 * every thread sampled again from an empty tree. */
	new_identity(culprit_process.generation + 1);
	writer_reserve();
	culprit_thread_reopen_all();
}
