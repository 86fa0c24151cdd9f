/* safe_text.c - names from the measured program, printed harmlessly.
 *
 * Procedure, file, module and thread names come from the program (and a
 * database can be edited by anyone), so they may hold control sequences
 * that a terminal would obey: ESC [2J clears it, OSC sets its title, and
 * in UTF-8 the C1 control U+009B is a CSI of its own.  Text printed by
 * report and dump goes through here: valid UTF-8 that is not a control
 * stays as it is, every control byte or character, and every byte that
 * is not UTF-8, becomes '?'.  (The viewer does the same through the
 * locale, with curses.) */
#include "tools.h"

#include <stdio.h>

/* The length of the valid UTF-8 sequence at S, 0 if there is none. */
static size_t utf8_len(const unsigned char *s, unsigned *cp)
{
	unsigned c = s[0];
	size_t n;
	unsigned min;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, min = 0x80, *cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, min = 0x800, *cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, min = 0x10000, *cp = c & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	if (*cp < min || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return n;
}

size_t safe_char(const char *s)
{
	unsigned cp;
	size_t n = utf8_len((const unsigned char *)s, &cp);
	if (n == 0 || cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
		return 0;
	return n;
}

void fput_safe(FILE *f, const char *s, size_t width)
{
	size_t shown = 0;
	while (s && *s && (!width || shown < width)) {
		size_t n = safe_char(s);
		if (n == 0) {
			fputc('?', f);
			s++;
		} else {
			fwrite(s, 1, n, f);
			s += n;
		}
		shown++;
	}
}

void make_safe(char *s)
{
	char *out = s;
	while (s && *s) {
		size_t n = safe_char(s);
		if (n == 0) {
			*out++ = '?';
			s++;
		} else {
			for (size_t i = 0; i < n; i++)
				*out++ = *s++;
		}
	}
	if (out)
		*out = 0;
}
