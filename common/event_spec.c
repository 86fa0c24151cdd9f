/* event_spec.c - the CULPRIT_EVENTS encoding: events separated by ';',
 * fields by ',': name,unit,source,flags,period,type,config,config1,config2
 * with numbers in hex.  Plain text so that a user can read it in `env`. */
#include "event_spec.h"

#include <stdio.h>
#include <string.h>

int event_spec_encode(const struct event_spec *ev, int n, char *buf, size_t size)
{
	size_t used = 0;

	if (size == 0)
		return -1;
	buf[0] = 0;
	for (int i = 0; i < n; i++) {
		const struct event_spec *e = &ev[i];
		if (strpbrk(e->name, ",;") || strpbrk(e->unit, ",;") || !e->name[0])
			return -1;
		int k = snprintf(buf + used, size - used,
				 "%s%s,%s,%x,%x,%llx,%x,%llx,%llx,%llx", i ? ";" : "",
				 e->name, e->unit, e->source, e->flags,
				 (unsigned long long)e->period, e->perf_type,
				 (unsigned long long)e->perf_config,
				 (unsigned long long)e->perf_config1,
				 (unsigned long long)e->perf_config2);
		if (k < 0 || (size_t)k >= size - used)
			return -1;
		used += (size_t)k;
	}
	return 0;
}

/* Copies the field at *S up to DELIM or the end into OUT (SIZE bytes).
 * Returns 0 and advances *S past the delimiter, or -1. */
static int field(const char **s, char *out, size_t size)
{
	size_t n = strcspn(*s, ",;");
	if (n == 0 || n >= size)
		return -1;
	memcpy(out, *s, n);
	out[n] = 0;
	*s += n;
	if (**s == ',')
		(*s)++;
	return 0;
}

static int hex(const char **s, uint64_t *v)
{
	char tmp[24], *end;
	unsigned long long x;

	if (field(s, tmp, sizeof tmp) < 0)
		return -1;
	/* strtoull is allocation-free; avoid locale-dependent surprises by
	 * accepting hex digits only. */
	x = 0;
	for (end = tmp; *end; end++) {
		int d;
		if (*end >= '0' && *end <= '9')
			d = *end - '0';
		else if (*end >= 'a' && *end <= 'f')
			d = *end - 'a' + 10;
		else
			return -1;
		if (x >> 60)
			return -1;
		x = x << 4 | (unsigned)d;
	}
	*v = x;
	return 0;
}

int event_spec_decode(const char *s, struct event_spec *ev, int max)
{
	int n = 0;

	while (*s) {
		struct event_spec *e;
		uint64_t v[8];

		if (n == max)
			return -1;
		e = &ev[n];
		memset(e, 0, sizeof *e);
		if (field(&s, e->name, sizeof e->name) < 0 ||
		    field(&s, e->unit, sizeof e->unit) < 0)
			return -1;
		for (int i = 0; i < 7; i++)
			if (hex(&s, &v[i]) < 0)
				return -1;
		if (*s == ';')
			s++;
		else if (*s)
			return -1;
		e->source = (uint32_t)v[0];
		e->flags = (uint32_t)v[1];
		e->period = v[2];
		e->perf_type = (uint32_t)v[3];
		e->perf_config = v[4];
		e->perf_config1 = v[5];
		e->perf_config2 = v[6];
		if (e->period == 0)
			return -1;
		n++;
	}
	return n;
}
