/* perf_sample.h - how culprit asks perf_event for its sample records: one
 * definition for the collector's sources (collector/source.c) and for
 * culprit run's measure of how late samples are (driver/sample_lead.c),
 * which read the same record layout: a u64 time, then the counter's u64
 * value. */
#ifndef CULPRIT_PERF_SAMPLE_H
#define CULPRIT_PERF_SAMPLE_H

#include <linux/perf_event.h>
#include <time.h>

/* Sets in A what every culprit sample record needs: the time of the
 * overflow on CLOCK_MONOTONIC (the clock the collector reads), the
 * counter's value, a wakeup per record, and the counter stopped until
 * enabled.  The event and its period are the caller's. */
static inline void perf_sample_attr(struct perf_event_attr *a)
{
	a->size = sizeof *a;
	a->sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_READ;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->disabled = 1;
	a->exclude_hv = 1;
	a->wakeup_events = 1;
}

#endif
