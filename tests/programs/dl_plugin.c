/* dl_plugin.c - a library to dlopen; built twice, as libplugin_a.so with
 * PLUGIN_NAME=plugin_a_work and libplugin_b.so with plugin_b_work. */
#include "work.h"

double PLUGIN_NAME(long n);

double PLUGIN_NAME(long n)
{
	return work_units(n);
}
