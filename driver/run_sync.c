/* run_sync.c - puts the program's measurements on disk while it runs.
 *
 * The collector rewrites each thread's file about once a second (a
 * snapshot, renamed over the last one), so that a process killed by
 * SIGKILL keeps what it measured.  A machine that loses power keeps only
 * what reached the disk, and the kernel writes dirty pages back some 30
 * seconds after they were written.  Syncing inside the program would
 * stall the thread being measured (it was tried: short parallel regions
 * lost up to a tenth of their idleness), so `culprit run`, which only
 * waits for the program, does it: inotify tells it of each file renamed
 * into the measurement directory, and it syncs that file's data, then the
 * directory, so that the name survives with it.
 *
 * A round syncs at most SYNC_FILES files one by one; beyond that, or when
 * inotify lost events, one syncfs() of the whole file system is cheaper
 * than a journal commit per file.  Rounds are at least SYNC_GAP_MS apart
 * so that a thousand threads snapshotting cost ten rounds a second, not a
 * thousand.
 */
#define _GNU_SOURCE
#include "driver.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SYNC_FILES 16
#define SYNC_GAP_MS 100
#define SYNC_BLIND_MS 500

struct run_sync {
	int dir;		/* the measurement directory */
	int notify;		/* inotify, or -1: sync nothing while it runs */
	char *names[SYNC_FILES];	/* renamed in since the last round */
	int count;
	int whole;		/* more than SYNC_FILES, or events lost */
};

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Notes NAME as one to sync, once. */
static void note_name(struct run_sync *s, const char *name)
{
	if (s->whole)
		return;
	for (int i = 0; i < s->count; i++)
		if (strcmp(s->names[i], name) == 0)
			return;
	if (s->count == SYNC_FILES) {
		s->whole = 1;
		return;
	}
	s->names[s->count++] = xstrdup(name);
}

/* Notes the names inotify has for us. */
static void read_events(struct run_sync *s)
{
	char buf[16 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	while ((n = read(s->notify, buf, sizeof buf)) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *e = (const struct inotify_event *)p;
			if (e->mask & IN_Q_OVERFLOW)
				s->whole = 1;
			else if (e->len > 0 && e->name[0] != '.')
				note_name(s, e->name);
			p += sizeof *e + e->len;
		}
	}
}

/* Syncs what was noted: each file's data, then the directory's entries. */
static void sync_round(struct run_sync *s)
{
	if (s->whole) {
		syncfs(s->dir);
	} else if (s->count > 0) {
		for (int i = 0; i < s->count; i++) {
			int fd = openat(s->dir, s->names[i], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
			if (fd >= 0) {
				fdatasync(fd);
				close(fd);
			}
		}
		fsync(s->dir);
	} else {
		return;
	}
	for (int i = 0; i < s->count; i++)
		free(s->names[i]);
	s->count = 0;
	s->whole = 0;
}

/* Watches DIR for measurement files.  Without inotify (a user out of
 * instances), every SYNC_BLIND_MS is a round of the whole file system. */
static void sync_start(struct run_sync *s, const char *dir)
{
	memset(s, 0, sizeof *s);
	s->notify = -1;
	s->dir = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dir < 0)
		return;
	s->notify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	/* Every file is written beside its name and renamed over it. */
	if (s->notify >= 0 && inotify_add_watch(s->notify, dir, IN_MOVED_TO) < 0) {
		close(s->notify);
		s->notify = -1;
	}
}

/* The files written at the end go to disk too. */
static void sync_stop(struct run_sync *s)
{
	if (s->notify >= 0) {
		read_events(s);
		close(s->notify);
	} else if (s->dir >= 0) {
		s->whole = 1;
	}
	sync_round(s);
	if (s->dir >= 0)
		close(s->dir);
}

/* Waits for PID (our child) while syncing DIR; its wait status into
 * *STATUS.  Returns 0, or -1 with errno. */
int run_wait_syncing(pid_t pid, const char *dir, int *status)
{
	struct run_sync s;
	sync_start(&s, dir);
	int pidfd = s.dir >= 0 ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
	long last = 0;

	while (pidfd >= 0) {
		struct pollfd fds[2] = { { pidfd, POLLIN, 0 }, { s.notify, POLLIN, 0 } };
		/* What was noted waits until SYNC_GAP_MS after the last round. */
		int pending = s.count > 0 || s.whole;
		long wait = s.notify < 0 ? SYNC_BLIND_MS
			  : pending ? last + SYNC_GAP_MS - now_ms() : -1;
		int n = poll(fds, s.notify < 0 ? 1 : 2, pending && wait < 0 ? 0 : (int)wait);
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0 && s.notify >= 0 && (fds[1].revents & POLLIN))
			read_events(&s);
		if (n == 0 && s.notify < 0)
			s.whole = 1;
		if ((s.count > 0 || s.whole) && now_ms() >= last + SYNC_GAP_MS) {
			sync_round(&s);
			last = now_ms();
		}
		if (n > 0 && (fds[0].revents & POLLIN))
			break;	/* it ended; waitpid below reaps it */
	}
	if (pidfd >= 0)
		close(pidfd);
	int rc;
	while ((rc = waitpid(pid, status, 0)) < 0 && errno == EINTR)
		;
	int saved = errno;
	sync_stop(&s);
	errno = saved;
	return rc < 0 ? -1 : 0;
}
