/* event_spec.h - a resolved sample event, as `culprit run` hands it to the
 * collector.
 *
 * The driver resolves what the user typed (-e cycles@f2000) with libpfm4
 * into perf_event fields, checks that the kernel accepts it, and passes the
 * list to the preloaded collector in the CULPRIT_EVENTS environment
 * variable.  The collector only decodes it, so libpfm4 never has to be
 * loaded into the profiled program.
 */
#ifndef CULPRIT_EVENT_SPEC_H
#define CULPRIT_EVENT_SPEC_H

#include <stddef.h>
#include <stdint.h>

#define EVENT_MAX 8		/* events per run */
#define EVENT_NAME_MAX 64

struct event_spec {
	char name[EVENT_NAME_MAX];	/* lower case: "cputime", "cycles" */
	char unit[8];			/* "ns" or "count" */
	uint32_t source;		/* enum mfile_event_source */
	uint32_t flags;			/* MFILE_EVENT_FREQ */
	uint64_t period;		/* ns for timers; events or Hz for perf */
	uint32_t perf_type;		/* perf_event_attr fields (MFILE_SRC_PERF) */
	uint64_t perf_config, perf_config1, perf_config2;
};

/* Writes N events to BUF as one line for the environment.  Returns 0, or -1
 * when BUF is too small or a name has a character the encoding reserves. */
int event_spec_encode(const struct event_spec *ev, int n, char *buf, size_t size);

/* Parses S into at most MAX events.  Returns the count, or -1 when S is
 * malformed.  Allocation-free: safe in the collector's constructor. */
int event_spec_decode(const char *s, struct event_spec *ev, int max);

#endif
