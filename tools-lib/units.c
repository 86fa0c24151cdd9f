/* units.c - numbers as short text: durations, and the levels of a
 * sparkline or a histogram drawn a character per value. */
#include "tools.h"

#include <stdio.h>
#include <stdlib.h>

const char *short_duration(double ns, char *buf, size_t size)
{
	if (ns < 1000)
		snprintf(buf, size, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, size, "%.3gus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, size, "%.3gms", ns / 1e6);
	else
		snprintf(buf, size, "%.3gs", ns / 1e9);
	return buf;
}

const char *level_char(double v, double top)
{
	/* Eighth blocks where the locale can show them; else a ramp of
	 * ASCII that reads as rising. */
	static const char *const utf8[] = { "\u2581", "\u2582", "\u2583", "\u2584",
					    "\u2585", "\u2586", "\u2587", "\u2588" };
	static const char *const ascii[] = { "_", ".", "-", "=", "+", "*", "#", "@" };
	if (!(v > 0) || !(top > 0))
		return " ";
	int level = (int)(v / top * 7.999);
	if (level > 7)
		level = 7;
	return MB_CUR_MAX > 1 ? utf8[level] : ascii[level];
}
