/* dl.c - libraries that come and go: dlopen a library, work in it,
 * dlclose it, then the same with a second one (which the loader is
 * likely to map where the first was).  usage: dl DIR */
#include <dlfcn.h>
#include <stdio.h>

#include "work.h"

volatile double sink;

static int use(const char *dir, const char *lib, const char *fn)
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
	sink += f(120000000);
	return dlclose(h);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	if (use(dir, "libplugin_a.so", "plugin_a_work") || use(dir, "libplugin_b.so", "plugin_b_work"))
		return 1;
	printf("dl done\n");
	return 0;
}
