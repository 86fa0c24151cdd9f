/* output.c - what the report's views print with. */
#include "report.h"
#include "tools.h"

#include <stdio.h>
#include <string.h>

/* The characters of S as fput_safe prints them. */
static size_t safe_length(const char *s)
{
	size_t n = 0;
	while (s && *s) {
		size_t k = safe_char(s);
		s += k ? k : 1;
		n++;
	}
	return n;
}

int put_safe(const char *s, int width)
{
	size_t n = safe_length(s);
	if (width > 3 && n > (size_t)width) {
		fput_safe(stdout, s, (size_t)width - 3);
		fputs("...", stdout);
		return width;
	}
	fput_safe(stdout, s, 0);
	return (int)n;
}

void put_csv(const char *s)
{
	if (!s)
		return;
	int quote = strpbrk(s, ",\"\n\r") != NULL;
	if (quote)
		putchar('"');
	while (*s) {
		size_t n = safe_char(s);
		if (*s == '"')
			fputs("\"\"", stdout);
		else if (n)
			fwrite(s, 1, n, stdout);
		else
			putchar('?');
		s += n ? n : 1;
	}
	if (quote)
		putchar('"');
}

const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	return slash ? slash + 1 : path;
}

const char *amount(const char *unit, double v)
{
	/* A few at once: one printf may show several. */
	static char buf[8][64];
	static unsigned next;
	char *b = buf[next++ % 8];
	snprintf(b, sizeof buf[0], strcmp(unit, "seconds") == 0 ? "%.3f" : "%.4g", v);
	return b;
}

void put_value(const struct report *r, double v)
{
	if (strcmp(r->ch.unit, "seconds") == 0)
		printf("%9.3f", v);
	else
		printf("%9.4g", v);
}

double pct(const struct report *r, double v)
{
	return r->ch.base > 0 ? 100.0 * v / r->ch.base : 0;
}

void put_title(const struct report *r, const char *view)
{
	printf("culprit report: ");
	put_safe(dbr_file(r->db), 60);
	printf(" (%s)\n", view);
}

void put_header(const struct report *r, const char *view)
{
	put_title(r, view);
	printf("%s %s in %s, total ", r->ch.event, r->ch.metric, r->ch.unit);
	put_value(r, r->ch.total);
	printf("; showing at least ");
	put_value(r, r->threshold);
	if (strcmp(r->ch.metric, MET_SAMPLES) == 0)
		printf("\n%% of all samples\n\n");
	else
		printf("\n%% of the effort (work + idleness), %s %s\n\n", amount(r->ch.unit, r->ch.base),
		       r->ch.unit);
}

const char *ctx_name(const struct dbr_ctx *c)
{
	return c->procedure ? c->procedure : "?";
}

void context_label(const struct report *r, uint32_t i, char *buf, size_t size)
{
	const struct dbr_ctx *c = &r->tree->c[i];
	const struct dbr_ctx *site = c->parent != UINT32_MAX &&
				     r->tree->c[c->parent].kind == KIND_CALLSITE[0]
				     ? &r->tree->c[c->parent] : NULL;
	const char *inlined = c->kind == KIND_INLINED[0] ? "[inlined] " : "";
	switch (c->kind) {
	case 'f':
	case 'i':
		if (site && site->file)
			snprintf(buf, size, "%s%s  <- %s:%d", inlined, ctx_name(c),
				 base_name(site->file), site->line);
		else
			snprintf(buf, size, "%s%s", inlined, ctx_name(c));
		break;
	case 's':
		snprintf(buf, size, "line %s:%d", base_name(c->file), c->line);
		break;
	case 'c':
		snprintf(buf, size, "call at %s:%d", c->file ? base_name(c->file) : "?", c->line);
		break;
	default:
		snprintf(buf, size, "%s", c->procedure ? c->procedure : "<root>");
		break;
	}
}
