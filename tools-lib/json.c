/* json.c - JSON strings.  Names come from the measured program and may
 * hold any byte: quotes and control characters are escaped, and a byte
 * that does not start a valid UTF-8 sequence becomes U+FFFD, so that
 * every consumer parses the file (culprit export, report and diff
 * --format=json). */
#include "tools.h"

#include <stdio.h>

#include <stdint.h>

/* The length of the valid UTF-8 sequence at S, or 0. */
static int utf8_length(const unsigned char *s)
{
	int n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	if (s[0] >= 0xf5)
		n = 0;
	for (int i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* Overlong forms and surrogates are not UTF-8. */
	if ((n == 3 && s[0] == 0xe0 && s[1] < 0xa0) || (n == 3 && s[0] == 0xed && s[1] >= 0xa0) ||
	    (n == 4 && s[0] == 0xf0 && s[1] < 0x90) || (n == 4 && s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

void json_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	putc('"', f);
	while (*s) {
		if (*s == '"' || *s == '\\') {
			putc('\\', f);
			putc(*s++, f);
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(f, "\\u%04x", *s++);
		} else if (*s < 0x80) {
			putc(*s++, f);
		} else {
			int n = utf8_length(s);
			if (n == 0) {
				fputs("\\ufffd", f);
				s++;
			} else if (n == 2 && s[0] == 0xc2 && s[1] < 0xa0) {
				/* A C1 control (U+0080-U+009F): escaped too, so
				 * that the file shown in a terminal is harmless. */
				fprintf(f, "\\u%04x", s[1]);
				s += 2;
			} else {
				fwrite(s, 1, (size_t)n, f);
				s += n;
			}
		}
	}
	putc('"', f);
}
