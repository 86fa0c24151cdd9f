/* plugin.c - finds the unwind plugins linked into the collector and calls
 * their hooks.
 *
 * Plugins register themselves with CULPRIT_PLUGIN(), which puts a pointer
 * in the "culprit_plugins" section; the linker brackets that section with
 * __start_/__stop_ symbols (weak here, since a build may have none).  A
 * plugin takes part in a process when its init hook says so.
 */
#include "collector.h"

#include <string.h>


extern const struct culprit_plugin *const __start_culprit_plugins[]
	__attribute__((weak, visibility("hidden")));
extern const struct culprit_plugin *const __stop_culprit_plugins[]
	__attribute__((weak, visibility("hidden")));

static const struct culprit_plugin *active[MAX_PLUGINS];
static int nactive;

void plugins_init(void)
{
	const struct culprit_plugin *const *p;

	nactive = 0;
	for (p = __start_culprit_plugins; p && p < __stop_culprit_plugins; p++) {
		const struct culprit_plugin *pl = *p;
		if (pl->abi != CULPRIT_PLUGIN_ABI) {
			culprit_log("plugin %s was built for another collector; skipped", pl->name);
			continue;
		}
		if (nactive == MAX_PLUGINS) {
			culprit_log("more than %d plugins; %s skipped", MAX_PLUGINS, pl->name);
			continue;
		}
		if (!pl->init || pl->init())
			active[nactive++] = pl;
	}
}

void plugins_fini(void)
{
	for (int i = nactive - 1; i >= 0; i--)
		if (active[i]->fini)
			active[i]->fini();
}

void plugins_thread_create(void *cookies[])
{
	CULPRIT_MEASURED;
	for (int i = 0; i < nactive; i++) {
		cookies[i] = NULL;
		if (active[i]->thread_create)
			active[i]->thread_create(&cookies[i]);
	}
}

void plugins_release(void *cookies[])
{
	CULPRIT_MEASURED;
	for (int i = 0; i < nactive; i++)
		if (active[i]->release)
			active[i]->release(cookies[i]);
}

void plugins_thread_begin(void *cookies[])
{
	CULPRIT_MEASURED;
	for (int i = 0; i < nactive; i++)
		if (active[i]->thread_begin)
			active[i]->thread_begin(cookies ? cookies[i] : NULL);
}

void plugins_thread_end(void)
{
	CULPRIT_MEASURED;
	for (int i = nactive - 1; i >= 0; i--)
		if (active[i]->thread_end)
			active[i]->thread_end();
}

void plugins_fork_child(void)
{
	CULPRIT_MEASURED;
	for (int i = 0; i < nactive; i++)
		if (active[i]->fork_child)
			active[i]->fork_child();
}

/* async-signal-safe */
int plugins_tasks_pending(void)
{
	for (int i = 0; i < nactive; i++)
		if (active[i]->tasks_pending && active[i]->tasks_pending())
			return 1;
	return 0;
}

enum culprit_idle_cause plugins_wait_cause(enum culprit_idle_cause cause, unsigned kind,
				       const void *object)
{
	for (int i = 0; i < nactive; i++)
		if (active[i]->wait_cause)
			cause = active[i]->wait_cause(cause, kind, object);
	return cause;
}

/* async-signal-safe */
int plugins_rewrite(void)
{
	for (int i = 0; i < nactive; i++)
		if (active[i]->logical_frames)
			return 1;
	return 0;
}

/* async-signal-safe */
int plugins_logical_frames(struct culprit_path *path, int b, int whole)
{
	/* The frames past B wait at the far end of the scratch. */
	int tail = path->n - b;
	int cap = path->max - tail;
	if (tail < 0 || cap < b)
		return b;
	struct culprit_frame *beyond = path->frame + cap;
	memmove(beyond, path->frame + b, (size_t)tail * sizeof *path->frame);
	int n = b;
	for (int i = 0; i < nactive; i++)
		if (active[i]->logical_frames)
			n = active[i]->logical_frames(path->frame, n, cap, beyond, tail, whole);
	/* Logical frames as records keep them (frame_word): a key wider
	 * than the contract would be one frame here and another there. */
	for (int i = 0; i < n; i++)
		if (path->frame[i].kind == MFILE_NODE_LOGICAL) {
			path->frame[i].addr &= (1ull << CULPRIT_LOGICAL_KEY_BITS) - 1;
			path->frame[i].module &= CULPRIT_LOGICAL_NAMESPACES;
		}
	memmove(path->frame + n, beyond, (size_t)tail * sizeof *path->frame);
	path->n = n + tail;
	return n;
}
