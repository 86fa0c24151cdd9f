/* util.c - small async-signal-safe helpers: formatting, logging, clocks,
 * raw memory.
 *
 * The collector cannot use stdio or malloc where a signal may interrupt
 * the program inside them, so it formats into fixed buffers here and
 * writes with write(2). */
#include "collector.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct out {
	char *buf;
	size_t size, len;
};

static void put_char(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void put_str(struct out *o, const char *s)
{
	if (!s)
		s = "(null)";
	while (*s)
		put_char(o, *s++);
}

static void put_uint(struct out *o, unsigned long long v, unsigned base)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (n)
		put_char(o, tmp[--n]);
}

static size_t vformat(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };

	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			put_char(&o, *fmt);
			continue;
		}
		fmt++;
		int lng = 0, sz = 0;
		while (*fmt == 'l') {
			lng++;
			fmt++;
		}
		if (*fmt == 'z') {
			sz = 1;
			fmt++;
		}
		switch (*fmt) {
		case 's':
			put_str(&o, va_arg(ap, const char *));
			break;
		case 'c':
			put_char(&o, (char)va_arg(ap, int));
			break;
		case 'd': {
			long long v = lng >= 2 ? va_arg(ap, long long)
				      : lng ? va_arg(ap, long) : va_arg(ap, int);
			if (v < 0) {
				put_char(&o, '-');
				put_uint(&o, 0ull - (unsigned long long)v, 10);
			} else {
				put_uint(&o, (unsigned long long)v, 10);
			}
			break;
		}
		case 'u':
		case 'x': {
			unsigned long long v = sz ? va_arg(ap, size_t)
					       : lng >= 2 ? va_arg(ap, unsigned long long)
					       : lng ? va_arg(ap, unsigned long)
						     : va_arg(ap, unsigned);
			put_uint(&o, v, *fmt == 'x' ? 16 : 10);
			break;
		}
		case 'p':
			put_str(&o, "0x");
			put_uint(&o, (uintptr_t)va_arg(ap, void *), 16);
			break;
		case '%':
			put_char(&o, '%');
			break;
		default:
			put_char(&o, '?');
			break;
		}
		if (!*fmt)
			break;
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = 0;
	return o.len < size ? o.len : (size ? size - 1 : 0);
}

size_t culprit_format(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t n = vformat(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/* async-signal-safe */
void culprit_log(const char *fmt, ...)
{
	char line[512];
	int saved = errno;
	va_list ap;

	memcpy(line, "culprit: ", 9);
	va_start(ap, fmt);
	size_t n = 9 + vformat(line + 9, sizeof line - 10, fmt, ap);
	va_end(ap);
	line[n++] = '\n';
	while (write(STDERR_FILENO, line, n) < 0 && errno == EINTR)
		;
	errno = saved;
}

static uint64_t now(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t culprit_now_realtime(void)
{
	return now(CLOCK_REALTIME);
}

uint64_t culprit_now_monotonic(void)
{
	return now(CLOCK_MONOTONIC);
}

/* A stamp and the clock read together at process start: the counter's rate
 * is their ratio to a later pair. */
static uint64_t stamp0, ns0;

void culprit_stamp_init(void)
{
	ns0 = culprit_now_monotonic();
	stamp0 = culprit_stamp();
}

/* async-signal-safe */
uint64_t culprit_stamp_at(uint64_t when_ns, uint64_t now_ns)
{
	uint64_t stamp = culprit_stamp();
	/* A millisecond measures the rate to a few parts in a thousand, and
	 * it is applied to microseconds. */
	if (!ns0 || now_ns < ns0 + 1000000 || stamp <= stamp0 || when_ns > now_ns)
		return 0;
	double per_ns = (double)(stamp - stamp0) / (double)(now_ns - ns0);
	uint64_t back = (uint64_t)((double)(now_ns - when_ns) * per_ns);
	return back < stamp ? stamp - back : 0;
}

pid_t culprit_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* getpid(2) straight from the kernel: a vfork child must see its own pid. */
pid_t culprit_getpid(void)
{
	return (pid_t)syscall(SYS_getpid);
}

void *culprit_map(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void culprit_unmap(void *p, size_t size)
{
	if (p)
		munmap(p, size);
}
