/* escapes.c - control flow and processes that bypass what the collector
 * interposes, while it samples.  Each mode does known work and prints
 * what it did, so a run under culprit can be compared with a plain one.
 *
 *   longjmp  dive() recurses 24 levels to bottom(), which works and then
 *            longjmp()s back past every sampled frame; 3000 times
 *   vfork    a second thread works while the first vfork()s and execs
 *            /bin/true 300 times
 *   clone    a thread made with the raw clone system call, no pthreads
 *            and the creator's TLS, works beside the first thread
 *   fork     a child made with the raw clone system call (no atfork
 *            handlers run) works and exits; the parent works and waits
 *   stack    a thread with a STACK_GIB GiB stack recurses down through
 *            nearly all of it, working at the bottom
 *   fill     a thread works and ends; then the first fills the file
 *            system of DIR (a file DIR/filler) and exits
 *
 * usage: escapes MODE [STACK_GIB | DIR]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "work.h"

volatile double sink;
volatile int escape = 1;	/* 0 would make bottom() return */
static jmp_buf back;

/* ---- longjmp ------------------------------------------------------------- */

__attribute__((noinline)) void bottom(void)
{
	sink += work_units(100000);
	if (escape)
		longjmp(back, 1);
}

__attribute__((noinline)) void dive(int depth)
{
	if (depth == 0)
		bottom();
	else
		dive(depth - 1);
	sink += depth;	/* not a tail call: every level keeps its frame */
}

__attribute__((noinline)) long jumps(void)
{
	volatile long n = 0;
	for (int i = 0; i < 3000; i++)
		if (setjmp(back) == 0)
			dive(24);
		else
			n++;
	return n;
}

/* ---- vfork ----------------------------------------------------------------- */

static atomic_int stop;

__attribute__((noinline)) void *beside(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		sink += work_units(100000);
	return NULL;
}

__attribute__((noinline)) int vforks(void)
{
	pthread_t t;
	volatile int ok = 0;
	pthread_create(&t, NULL, beside, NULL);
	for (int i = 0; i < 300; i++) {
		pid_t pid = vfork();
		if (pid == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		int status;
		if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		    WEXITSTATUS(status) == 0)
			ok++;
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	return ok;
}

/* ---- raw clone ------------------------------------------------------------- */

#define CLONE_STACK (1 << 20)
static atomic_int clone_done;

/* Runs on the raw thread: no libc state of its own, so only work and
 * system calls. */
__attribute__((noinline)) int cloned_work(void *arg)
{
	(void)arg;
	sink += work_units(150000000);
	atomic_store(&clone_done, 1);
	syscall(SYS_futex, &clone_done, 1 /* FUTEX_WAKE */, 1, NULL, NULL, 0);
	syscall(SYS_exit, 0);
	return 0;
}

__attribute__((noinline)) int raw_thread(void)
{
	char *stack = mmap(NULL, CLONE_STACK, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return 0;
	int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
		    CLONE_SYSVSEM;
	if (clone(cloned_work, stack + CLONE_STACK, flags, NULL) < 0)
		return 0;
	sink += work_units(150000000);
	while (!atomic_load(&clone_done))
		syscall(SYS_futex, &clone_done, 0 /* FUTEX_WAIT */, 0, NULL, NULL, 0);
	return 1;
}

__attribute__((noinline)) int forked_work(void *arg)
{
	(void)arg;
	sink += work_units(100000000);
	return 7;	/* the child's exit status */
}

__attribute__((noinline)) int raw_fork(void)
{
	char *stack = mmap(NULL, CLONE_STACK, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return -1;
	pid_t pid = clone(forked_work, stack + CLONE_STACK, SIGCHLD, NULL);
	if (pid < 0)
		return -1;
	sink += work_units(100000000);
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* ---- a very deep stack ----------------------------------------------------- */

#define FRAME_BYTES 4000
static long levels;

__attribute__((noinline)) void deep_bottom(void)
{
	sink += work_units(200000000);
}

__attribute__((noinline)) void deep(long n)
{
	volatile char pad[FRAME_BYTES];
	pad[0] = (char)n;
	pad[FRAME_BYTES - 1] = (char)n;
	if (n == 0)
		deep_bottom();
	else
		deep(n - 1);
	sink += pad[0];
}

static void *deep_thread(void *arg)
{
	(void)arg;
	deep(levels);
	return NULL;
}

__attribute__((noinline)) int deep_stack(long gib)
{
	size_t size = (size_t)gib << 30;
	pthread_attr_t attr;
	pthread_t t;
	/* Nearly all of it, a frame being a little over FRAME_BYTES. */
	levels = (long)((size - (size >> 4)) / (FRAME_BYTES + 64));
	pthread_attr_init(&attr);
	if (pthread_attr_setstacksize(&attr, size + (1 << 20)) != 0 ||
	    pthread_create(&t, &attr, deep_thread, NULL) != 0)
		return 0;
	pthread_join(t, NULL);
	return 1;
}

/* ---- a full disk --------------------------------------------------------- */

__attribute__((noinline)) void *fill_worker(void *arg)
{
	(void)arg;
	sink += work_units(100000000);
	return NULL;
}

__attribute__((noinline)) int fill_disk(const char *dir)
{
	static char block[4096];
	char path[4096];
	pthread_t t;
	pthread_create(&t, NULL, fill_worker, NULL);
	pthread_join(t, NULL);
	snprintf(path, sizeof path, "%s/filler", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return 0;
	while (write(fd, block, sizeof block) == (ssize_t)sizeof block)
		;
	close(fd);
	return 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "longjmp";
	if (!strcmp(mode, "longjmp")) {
		printf("escapes longjmp: %ld jumps\n", jumps());
	} else if (!strcmp(mode, "vfork")) {
		printf("escapes vfork: %d children ran /bin/true\n", vforks());
	} else if (!strcmp(mode, "clone")) {
		printf("escapes clone: raw thread %s\n", raw_thread() ? "done" : "failed");
	} else if (!strcmp(mode, "fork")) {
		printf("escapes fork: raw child exited %d\n", raw_fork());
	} else if (!strcmp(mode, "stack")) {
		long gib = argc > 2 ? atol(argv[2]) : 4;
		int ok = deep_stack(gib);
		printf("escapes stack: %ld levels in %ld GiB %s\n", levels, gib, ok ? "done" : "failed");
	} else if (!strcmp(mode, "fill") && argc > 2) {
		printf("escapes fill: %s\n", fill_disk(argv[2]) ? "the disk is full" : "failed");
	} else {
		fprintf(stderr, "usage: escapes longjmp|vfork|clone|fork|stack [GIB]|fill DIR\n");
		return 2;
	}
	return 0;
}
