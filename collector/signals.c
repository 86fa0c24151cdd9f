/* signals.c - our signals, and the program's view of its own.
 *
 * Three jobs:
 *   - The sample signal (a real-time signal) is ours alone.  The program's
 *     sigaction(), signal() and friends cannot replace its handler, and
 *     sigprocmask()/pthread_sigmask() cannot block it: we keep what the
 *     program asked for in a shadow table and report that back, so the
 *     program sees exactly what it would have seen without us.
 *   - Signals whose default action ends the process get a handler of ours
 *     while the program leaves them at SIG_DFL: it writes the measurements,
 *     restores SIG_DFL and lets the signal do what it would have done.
 *     A handler the program installs goes to the kernel unchanged.
 *   - SIGSEGV and SIGBUS always reach our handler first, because a fault
 *     while unwinding a sample must end that unwind, not the program.
 *     Faults that are not ours go on to the program's handler (or to the
 *     default action).
 */
#define _GNU_SOURCE
#include "collector.h"
#include "real.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const int terminating[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE,
	SIGUSR1, SIGSEGV, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGSTKFLT,
	SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSYS,
};

static struct sigaction shadow[NSIG];	/* what the program installed */
static unsigned char managed[NSIG];	/* we stand between program and kernel */
static int ready;
static atomic_flag table_lock = ATOMIC_FLAG_INIT;
static atomic_int warned_signo;
static __thread int app_blocked __attribute__((tls_model("initial-exec")));

static int (*kernel_sigaction)(int, const struct sigaction *, struct sigaction *);

static void lock(void)
{
	while (atomic_flag_test_and_set_explicit(&table_lock, memory_order_acquire))
		;
}

static void unlock(void)
{
	atomic_flag_clear_explicit(&table_lock, memory_order_release);
}

static int always_ours(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS;
}

static int is_handler(const struct sigaction *sa)
{
	return sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN;
}

/* Faults raised by an instruction come back if we just return; signals
 * sent by someone must be sent again. */
static int synchronous(int sig, const siginfo_t *info)
{
	if (info->si_code <= 0)	/* SI_USER, SI_QUEUE, SI_TKILL, ... */
		return 0;
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
	       sig == SIGTRAP || sig == SIGSYS;
}

/* Runs the program's handler for SIG as the kernel would have. */
static void call_program_handler(int sig, siginfo_t *info, void *uc, struct sigaction *sa)
{
	struct sigaction h = *sa;
	sigset_t mask = h.sa_mask, old;

	if (h.sa_flags & SA_RESETHAND) {
		memset(sa, 0, sizeof *sa);
		sa->sa_handler = SIG_DFL;
	}
	if (!(h.sa_flags & SA_NODEFER))
		sigaddset(&mask, sig);
	sigdelset(&mask, culprit_config.signo);
	REAL(pthread_sigmask)(SIG_BLOCK, &mask, &old);
	if (h.sa_flags & SA_SIGINFO)
		h.sa_sigaction(sig, info, uc);
	else
		h.sa_handler(sig);
	REAL(pthread_sigmask)(SIG_SETMASK, &old, NULL);
}

/* async-signal-safe */
static void terminating_handler(int sig, siginfo_t *info, void *uc)
{
	int saved = errno;

	if (always_ours(sig))
		culprit_unwind_fault(uc);	/* returns only if the fault was not ours */

	struct sigaction *sa = &shadow[sig];
	/* The kernel's plain SIGIO (SI_KERNEL), sent instead of a sample
	 * source's real-time signal when the thread's signal queue is full
	 * (a low RLIMIT_SIGPENDING, strace -f): a lost sample, which must not
	 * end a program that never asked for SIGIO.  One that handles SIGIO
	 * still gets it (SIGIO is no count: its handler expects spurious
	 * ones). */
	if (sig == SIGIO && info->si_code == SI_KERNEL && !is_handler(sa)) {
		struct culprit_thread *t = culprit_thread_self();
		if (t)
			t->counter[CNT_DROP_OVERFLOW]++;
		errno = saved;
		return;
	}
	if (is_handler(sa)) {
		call_program_handler(sig, info, uc, sa);
		errno = saved;
		return;
	}
	if (sa->sa_handler == SIG_IGN && !synchronous(sig, info)) {
		errno = saved;
		return;
	}

	/* The default action: write what we have, then let it happen. */
	culprit_process_finish(MFILE_END_SIGNAL, sig);
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	kernel_sigaction(sig, &dfl, NULL);
	if (!synchronous(sig, info)) {
		/* Blocked while we run (or not, for SA_NODEFER); either way it
		 * is delivered with SIG_DFL by the time we return. */
		syscall(SYS_tgkill, culprit_getpid(), culprit_gettid(), sig);
	}
	errno = saved;
}

static int install_ours(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = terminating_handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	/* A fault inside the unwinder jumps out of this handler; with
	 * SA_NODEFER the fault signal is not left blocked behind us. */
	if (always_ours(sig))
		sa.sa_flags |= SA_NODEFER;
	sigfillset(&sa.sa_mask);
	sigdelset(&sa.sa_mask, SIGSEGV);
	sigdelset(&sa.sa_mask, SIGBUS);
	sigdelset(&sa.sa_mask, SIGILL);
	sigdelset(&sa.sa_mask, SIGFPE);
	return kernel_sigaction(sig, &sa, NULL);
}

int signals_init(void)
{
	struct sigaction sa;

	kernel_sigaction = REAL(sigaction);
	if (!kernel_sigaction)
		return -1;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = culprit_sample_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (kernel_sigaction(culprit_config.signo, &sa, &shadow[culprit_config.signo]) < 0) {
		culprit_log("cannot install the handler for signal %d: %s",
			    culprit_config.signo, strerrordesc_np(errno));
		return -1;
	}
	managed[culprit_config.signo] = 1;
	/* The fixed list, then the real-time signals, whose default action
	 * also ends the process. */
	size_t nfixed = sizeof terminating / sizeof *terminating;
	for (size_t i = 0; i < nfixed + (size_t)(SIGRTMAX - SIGRTMIN + 1); i++) {
		int sig = i < nfixed ? terminating[i] : SIGRTMIN + (int)(i - nfixed);
		if (sig == culprit_config.signo)
			continue;
		if (kernel_sigaction(sig, NULL, &shadow[sig]) < 0)
			continue;
		/* Leave signals the program inherited as ignored alone (nohup). */
		if (shadow[sig].sa_handler == SIG_IGN && !always_ours(sig))
			continue;
		if (shadow[sig].sa_handler != SIG_DFL && !always_ours(sig))
			continue;	/* installed before us by a library: theirs */
		if (install_ours(sig) == 0)
			managed[sig] = 1;
	}
	ready = 1;
	return 0;
}

void signals_fork_child(void)
{
	atomic_flag_clear(&table_lock);
}

/* async-signal-safe */
void signals_forward_foreign(int sig, siginfo_t *info, void *uc)
{
	/* The program's own use of our signal number: run its handler.  With
	 * no handler the default would have killed it; we drop the signal. */
	if (sig > 0 && sig < NSIG && is_handler(&shadow[sig]))
		call_program_handler(sig, info, uc, &shadow[sig]);
}

/* ---- the program's calls -------------------------------------------------- */

EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!ready || sig <= 0 || sig >= NSIG || !managed[sig])
		return REAL(sigaction)(sig, act, old);

	int rc = 0;
	lock();
	struct sigaction prev = shadow[sig];
	if (sig == culprit_config.signo) {
		/* Kept aside; we run it for signals that are not our samples. */
		if (act && is_handler(act) && atomic_exchange(&warned_signo, 1) == 0)
			culprit_log("the program uses signal %d, which culprit samples with; "
				    "set CULPRIT_SIGNAL to another real-time signal if it misbehaves",
				    sig);
	} else if (act) {
		if (act->sa_handler == SIG_DFL || always_ours(sig))
			rc = install_ours(sig);
		else
			rc = kernel_sigaction(sig, act, NULL);
	}
	if (rc == 0 && act)
		shadow[sig] = *act;
	unlock();
	if (rc == 0 && old)
		*old = prev;
	return rc;
}

static sighandler_t set_handler(int sig, sighandler_t handler, int flags, int mask_sig)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	if (mask_sig && sig > 0 && sig < NSIG)
		sigaddset(&sa.sa_mask, sig);
	if (sigaction(sig, &sa, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

/* glibc implements these on its internal sigaction, which we cannot see,
 * so each needs its own wrapper. */
EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	return set_handler(sig, handler, SA_RESTART, 1);
}

/* Old name of signal(); glibc still exports it, though no header declares it. */
sighandler_t bsd_signal(int sig, sighandler_t handler);
EXPORT sighandler_t bsd_signal(int sig, sighandler_t handler)
{
	return set_handler(sig, handler, SA_RESTART, 1);
}

EXPORT sighandler_t sysv_signal(int sig, sighandler_t handler)
{
	return set_handler(sig, handler, SA_RESETHAND | SA_NODEFER, 0);
}

EXPORT sighandler_t sigset(int sig, sighandler_t disp)
{
	sigset_t one, old;

	if (sig <= 0 || sig >= NSIG) {
		errno = EINVAL;
		return SIG_ERR;
	}
	sigemptyset(&one);
	sigaddset(&one, sig);
	if (disp == SIG_HOLD) {
		struct sigaction cur;
		if (sigaction(sig, NULL, &cur) < 0 || sigprocmask(SIG_BLOCK, &one, &old) < 0)
			return SIG_ERR;
		return sigismember(&old, sig) ? SIG_HOLD : cur.sa_handler;
	}
	sighandler_t prev = set_handler(sig, disp, 0, 1);
	if (prev == SIG_ERR || sigprocmask(SIG_UNBLOCK, &one, &old) < 0)
		return SIG_ERR;
	return sigismember(&old, sig) ? SIG_HOLD : prev;
}

/* Strips our signal from a mask the program wants to block, and keeps
 * track of whether the program believes it blocked it. */
static const sigset_t *strip(int how, const sigset_t *set, sigset_t *copy, int *now_blocked)
{
	int sig = culprit_config.signo;

	*now_blocked = app_blocked;
	if (!set)
		return set;
	int member = sigismember(set, sig) == 1;
	if (how == SIG_SETMASK)
		*now_blocked = member;
	else if (how == SIG_BLOCK && member)
		*now_blocked = 1;
	else if (how == SIG_UNBLOCK && member)
		*now_blocked = 0;
	if (member && how != SIG_UNBLOCK) {
		*copy = *set;
		sigdelset(copy, sig);
		return copy;
	}
	return set;
}

/* Both mask calls: REAL is the libc function; errors are returned as it
 * returns them. */
static int set_mask(int (*real)(int, const sigset_t *, sigset_t *), int how,
		    const sigset_t *set, sigset_t *old)
{
	if (!ready)
		return real(how, set, old);
	sigset_t copy;
	int was = app_blocked, now;
	const sigset_t *use = strip(how, set, &copy, &now);
	int rc = real(how, use, old);
	if (rc == 0) {
		if (old && was)
			sigaddset(old, culprit_config.signo);
		app_blocked = now;
	}
	return rc;
}

EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	return set_mask(REAL(pthread_sigmask), how, set, old);
}

EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	return set_mask(REAL(sigprocmask), how, set, old);
}
