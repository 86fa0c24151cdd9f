/* dl.c - libraries that come and go: dlopen a library, work in it,
 * dlclose it, then the same with a second one (which the loader is
 * likely to map where the first was).  With a count, it then opens and
 * closes the first library that many times more, so that samples land
 * while the collector's load map is being updated.
 * usage: dl DIR [COUNT] */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

volatile double sink;

static int use(const char *dir, const char *lib, const char *fn, long units)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, lib);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	double (*f)(long) = (double (*)(long))dlsym(h, fn);
	if (!f)
		return 1;
	sink += f(units);
	return dlclose(h);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	long count = argc > 2 ? atol(argv[2]) : 0;
	if (use(dir, "libplugin_a.so", "plugin_a_work", 120000000) ||
	    use(dir, "libplugin_b.so", "plugin_b_work", 120000000))
		return 1;
	for (long i = 0; i < count; i++)
		if (use(dir, "libplugin_a.so", "plugin_a_work", 1000))
			return 1;
	printf("dl done\n");
	return 0;
}
