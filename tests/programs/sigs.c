/* sigs.c - programs that do their own thing with signals.
 *   prof      profiles itself with setitimer(ITIMER_PROF) and SIGPROF
 *   blockall  blocks every signal, then checks the mask reads back as set
 *   ownsig    installs a handler for SIGRTMIN+7 (culprit's default sample
 *             signal) and raises it
 *   sigsegv   catches its own SIGSEGV and recovers with siglongjmp
 *   allrt     installs a handler for every real-time signal, culprit's
 *             included, then raises each and counts what arrived
 *   altstack  runs its handlers on its own sigaltstack (SA_ONSTACK) and
 *             checks that they ran there
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

static char altstack[64 * 1024];
static volatile sig_atomic_t on_alt;

static void where(int sig)
{
	char here;
	(void)sig;
	on_alt = &here >= altstack && &here < altstack + sizeof altstack;
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
	if (!strcmp(mode, "allrt")) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = count;
		for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
			sigaction(s, &sa, NULL);
		sink += busy();
		for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
			raise(s);
		printf("real-time signals delivered: %d of %d\n", (int)hits,
		       SIGRTMAX - SIGRTMIN + 1);
		return 0;
	}
	if (!strcmp(mode, "altstack")) {
		stack_t ss = { .ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0 };
		struct sigaction sa;
		sigaltstack(&ss, NULL);
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = where;
		sa.sa_flags = SA_ONSTACK;
		sigaction(SIGUSR1, &sa, NULL);
		sink += busy();
		raise(SIGUSR1);
		stack_t now;
		sigaltstack(NULL, &now);
		printf("handler on the program's altstack: %s; altstack still the program's: %s\n",
		       on_alt ? "yes" : "no", now.ss_sp == altstack ? "yes" : "no");
		return 0;
	}
	fprintf(stderr, "usage: sigs prof|blockall|ownsig|sigsegv|allrt|altstack\n");
	return 2;
}
