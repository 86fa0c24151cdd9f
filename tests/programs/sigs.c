/* sigs.c - programs that do their own thing with signals.
 *   prof      profiles itself with setitimer(ITIMER_PROF) and SIGPROF
 *   blockall  blocks every signal, then checks the mask reads back as set
 *   ownsig    installs a handler for SIGRTMIN+7 (culprit's default sample
 *             signal) and raises it
 *   sigsegv   catches its own SIGSEGV and recovers with siglongjmp
 * usage: sigs MODE */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "work.h"

volatile double sink;
/* Not a constant, so the compiler cannot see the fault coming. */
static volatile int *volatile unmapped = (volatile int *)16;
static volatile sig_atomic_t hits;
static sigjmp_buf recover;

__attribute__((noinline)) double busy(void) { return work_units(250000000); }

static void count(int sig)
{
	(void)sig;
	hits++;
}

static void on_segv(int sig)
{
	(void)sig;
	hits++;
	siglongjmp(recover, 1);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "prof")) {
		struct itimerval it = { { 0, 5000 }, { 0, 5000 } };
		signal(SIGPROF, count);
		setitimer(ITIMER_PROF, &it, NULL);
		sink += busy();
		memset(&it, 0, sizeof it);
		setitimer(ITIMER_PROF, &it, NULL);
		printf("SIGPROF ticks: %s\n", hits > 30 ? "many" : "too few");
		return 0;
	}
	if (!strcmp(mode, "blockall")) {
		sigset_t all, now;
		sigfillset(&all);
		sigprocmask(SIG_BLOCK, &all, NULL);
		sigprocmask(SIG_SETMASK, NULL, &now);
		int open = 0;
		for (int s = 1; s < NSIG; s++)
			if (s != SIGKILL && s != SIGSTOP && sigismember(&now, s) == 0)
				open++;
		sink += busy();
		pthread_sigmask(SIG_SETMASK, NULL, &now);
		printf("signals left unblocked: %d; SIGRTMIN+7 blocked: %s\n", open,
		       sigismember(&now, SIGRTMIN + 7) ? "yes" : "no");
		return 0;
	}
	if (!strcmp(mode, "ownsig")) {
		struct sigaction sa, back;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = count;
		sigaction(SIGRTMIN + 7, &sa, NULL);
		sigaction(SIGRTMIN + 7, NULL, &back);
		sink += busy();
		raise(SIGRTMIN + 7);
		printf("handler reads back: %s; own signal delivered: %s\n",
		       back.sa_handler == count ? "yes" : "no", hits == 1 ? "yes" : "no");
		return 0;
	}
	if (!strcmp(mode, "sigsegv")) {
		signal(SIGSEGV, on_segv);
		sink += busy();
		if (sigsetjmp(recover, 1) == 0)
			*unmapped = 1;
		printf("recovered from %d SIGSEGV\n", (int)hits);
		return 0;
	}
	fprintf(stderr, "usage: sigs prof|blockall|ownsig|sigsegv\n");
	return 2;
}
