/* events.c - turns event names into perf_event settings, with libpfm4.
 *
 * CPUTIME and REALTIME are ours: CPU time through the perf_event
 * task-clock (falling back to a POSIX CPU-time timer where perf_event_open
 * is refused), and wall-clock time through a POSIX timer.  Every other name
 * is looked up by libpfm4, which knows the kernel's generic events
 * (cycles, perf::page-faults) and the PMU tables of most processors.  We
 * try to open each event on ourselves before the program starts, so that a
 * machine without a hardware PMU says so in one line instead of producing
 * an empty profile.
 */
#define _GNU_SOURCE
#include "driver.h"
#include "mfile_format.h"

#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

#define DEFAULT_HZ 1000

static int pfm_ready;

static int pfm_init(void)
{
	if (!pfm_ready)
		pfm_ready = pfm_initialize() == PFM_SUCCESS ? 1 : -1;
	return pfm_ready;
}

static long read_long(const char *path, long fallback)
{
	FILE *f = fopen(path, "r");
	long v = fallback;
	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = fallback;
		fclose(f);
	}
	return v;
}

static int has_hardware_pmu(void)
{
	return access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
	       access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0 ||
	       access("/sys/bus/event_source/devices/armv8_pmuv3_0", F_OK) == 0;
}

/* Encodes NAME with libpfm4 into *ATTR (zeroed first).  Returns PFM_SUCCESS
 * or libpfm4's error code. */
static int encode(const char *name, struct perf_event_attr *attr)
{
	pfm_perf_encode_arg_t arg;

	memset(attr, 0, sizeof *attr);
	memset(&arg, 0, sizeof arg);
	arg.attr = attr;
	arg.size = sizeof arg;
	return pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
}

/* Opens ATTR on this process, disabled, and closes it: can we sample it? */
static int probe(struct perf_event_attr *attr)
{
	attr->size = sizeof *attr;
	attr->disabled = 1;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	int fd = (int)syscall(SYS_perf_event_open, attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Parses RATE (after '@').  Time events take a period with a unit (ns, us,
 * ms, s; a bare number is microseconds, as in HPCToolkit) or fHZ; counting
 * events take a count or fHZ. */
static int parse_rate(const char *rate, int is_time, uint64_t *value, int *freq,
		      char *err, size_t errlen, const char *name)
{
	char *end;
	*freq = 0;
	if (rate[0] == 'f' || rate[0] == 'F') {
		*freq = 1;
		rate++;
	}
	errno = 0;
	double v = strtod(rate, &end);
	if (end == rate || errno || !(v > 0)) {
		snprintf(err, errlen, "event '%s': '%s' is not a valid rate; write @PERIOD or @fFREQUENCY, "
			 "for example %s@f1000", name, rate, name);
		return -1;
	}
	double scale = 1;
	if (*freq || !is_time) {
		if (*end) {
			snprintf(err, errlen, "event '%s': unexpected '%s' after the number", name, end);
			return -1;
		}
	} else if (!*end || strcmp(end, "us") == 0) {
		scale = 1e3;
	} else if (strcmp(end, "ns") == 0) {
		scale = 1;
	} else if (strcmp(end, "ms") == 0) {
		scale = 1e6;
	} else if (strcmp(end, "s") == 0) {
		scale = 1e9;
	} else {
		snprintf(err, errlen, "event '%s': unknown time unit '%s' (use ns, us, ms or s)", name, end);
		return -1;
	}
	v *= scale;
	if (v < 1 || v > 1e18) {
		snprintf(err, errlen, "event '%s': rate '%s' is out of range", name, rate);
		return -1;
	}
	*value = (uint64_t)v;
	return 0;
}

static int time_event(const char *name, const char *rate, struct event_spec *out,
		      char *err, size_t errlen)
{
	int is_cpu = strcasecmp(name, "CPUTIME") == 0;
	uint64_t v = DEFAULT_HZ;
	int freq = 1;

	if (rate && parse_rate(rate, 1, &v, &freq, err, errlen, name) < 0)
		return -1;
	uint64_t period = freq ? 1000000000u / v : v;
	if (freq && v > 1000000000u / 1000) {
		snprintf(err, errlen, "event '%s': %llu samples per second is more than culprit "
			 "supports (1000000 at most)", name, (unsigned long long)v);
		return -1;
	}
	if (period < 1000) {
		snprintf(err, errlen, "event '%s': a period of %llu ns is shorter than culprit "
			 "supports (1 us at least)", name, (unsigned long long)period);
		return -1;
	}
	memset(out, 0, sizeof *out);
	strcpy(out->name, is_cpu ? "cputime" : "realtime");
	strcpy(out->unit, "ns");
	out->period = period;
	if (!is_cpu) {
		out->source = MFILE_SRC_REAL_TIMER;
		return 0;
	}
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = period;
	int rc = probe(&a);
	if (rc == 0) {
		out->source = MFILE_SRC_PERF;
		out->perf_type = PERF_TYPE_SOFTWARE;
		out->perf_config = PERF_COUNT_SW_TASK_CLOCK;
		return 0;
	}
	out->source = MFILE_SRC_CPU_TIMER;
	msg_warn("perf_event_open is refused here (%s); CPUTIME falls back to a POSIX "
		 "CPU-time timer, whose resolution is limited by the kernel tick",
		 strerror(-rc));
	return 0;
}

static void lower(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

int events_resolve(const char *spec, struct event_spec *out, char *err, size_t errlen)
{
	char name[EVENT_NAME_MAX];
	const char *at = strrchr(spec, '@');
	size_t len = at ? (size_t)(at - spec) : strlen(spec);

	if (len == 0 || len >= sizeof name || strpbrk(spec, ",;")) {
		snprintf(err, errlen, "'%s' is not an event name (see culprit run -L)", spec);
		return -1;
	}
	memcpy(name, spec, len);
	name[len] = 0;
	const char *rate = at ? at + 1 : NULL;

	if (strcasecmp(name, "CPUTIME") == 0 || strcasecmp(name, "REALTIME") == 0)
		return time_event(name, rate, out, err, errlen);

	if (pfm_init() < 0) {
		snprintf(err, errlen, "event '%s': libpfm4 failed to initialise, so only CPUTIME "
			 "and REALTIME are available", name);
		return -1;
	}
	struct perf_event_attr a;
	int rc = encode(name, &a);
	if (rc != PFM_SUCCESS) {
		snprintf(err, errlen, "unknown event '%s' (%s); `culprit run -L` lists the events "
			 "this machine has", name, pfm_strerror(rc));
		return -1;
	}
	uint64_t v = DEFAULT_HZ;
	int freq = 1;
	if (rate && parse_rate(rate, 0, &v, &freq, err, errlen, name) < 0)
		return -1;
	long max_rate = read_long("/proc/sys/kernel/perf_event_max_sample_rate", 100000);
	if (freq && (long long)v > max_rate) {
		snprintf(err, errlen, "event '%s': %llu samples per second exceeds the kernel's "
			 "limit of %ld (kernel.perf_event_max_sample_rate)", name,
			 (unsigned long long)v, max_rate);
		return -1;
	}
	if (freq) {
		a.freq = 1;
		a.sample_freq = v;
	} else {
		a.sample_period = v;
	}
	uint32_t type = a.type;
	uint64_t c0 = a.config, c1 = a.config1, c2 = a.config2;
	rc = probe(&a);
	if (rc < 0) {
		int hw = type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE ||
			 type == PERF_TYPE_RAW || type >= PERF_TYPE_MAX;
		if (hw && !has_hardware_pmu())
			snprintf(err, errlen, "event '%s' needs a hardware performance counter, and "
				 "this machine has no hardware PMU (%s); use CPUTIME, REALTIME or a "
				 "software event such as perf::page-faults", name, strerror(-rc));
		else if (rc == -EACCES || rc == -EPERM)
			snprintf(err, errlen, "event '%s': not permitted (%s; perf_event_paranoid "
				 "is %ld); run `sysctl kernel.perf_event_paranoid=1` as root, or use "
				 "CPUTIME", name, strerror(-rc),
				 read_long("/proc/sys/kernel/perf_event_paranoid", -1));
		else
			snprintf(err, errlen, "event '%s' cannot be sampled on this machine (%s)",
				 name, strerror(-rc));
		return -1;
	}
	memset(out, 0, sizeof *out);
	snprintf(out->name, sizeof out->name, "%s", name);
	lower(out->name);
	/* The kernel's clock events count nanoseconds. */
	int clock = type == PERF_TYPE_SOFTWARE &&
		    (c0 == PERF_COUNT_SW_TASK_CLOCK || c0 == PERF_COUNT_SW_CPU_CLOCK);
	strcpy(out->unit, clock ? "ns" : "count");
	out->source = MFILE_SRC_PERF;
	out->flags = freq ? MFILE_EVENT_FREQ : 0;
	out->period = v;
	out->perf_type = type;
	out->perf_config = c0;
	out->perf_config1 = c1;
	out->perf_config2 = c2;
	return 0;
}

void events_list(void)
{
	printf("Events culprit can sample here (use -e NAME[@PERIOD|@fFREQUENCY]):\n\n");
	printf("  %-34s %s\n", "CPUTIME", "thread CPU time (default, CPUTIME@f1000)");
	printf("  %-34s %s\n", "REALTIME", "wall-clock time, blocked threads included");

	if (pfm_init() < 0) {
		printf("\nlibpfm4 failed to initialise: no other events are available.\n");
		return;
	}
	int hw = has_hardware_pmu();
	int pmu;
	pfm_for_all_pmus(pmu) {
		pfm_pmu_info_t pinfo;
		memset(&pinfo, 0, sizeof pinfo);
		pinfo.size = sizeof pinfo;
		if (pfm_get_pmu_info((pfm_pmu_t)pmu, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
			continue;
		int any = 0;
		for (int idx = pinfo.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
			pfm_event_info_t info;
			memset(&info, 0, sizeof info);
			info.size = sizeof info;
			if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &info) != PFM_SUCCESS)
				continue;
			char full[256];
			snprintf(full, sizeof full, "%s::%s", pinfo.name, info.name);
			const char *note = "";
			if (!any) {
				printf("\n%s (%s)%s:\n", pinfo.name, pinfo.desc,
				       pinfo.type == PFM_PMU_TYPE_CORE && !hw
				       ? " - not usable: no hardware PMU in this kernel" : "");
				any = 1;
			}
			if (pinfo.type != PFM_PMU_TYPE_CORE || hw) {
				struct perf_event_attr a;
				if (encode(full, &a) != PFM_SUCCESS) {
					note = " [cannot encode]";
				} else {
					a.sample_period = 1000000;
					if (probe(&a) < 0)
						note = " [not available here]";
				}
			}
			char desc[80];
			snprintf(desc, sizeof desc, "%s", info.desc ? info.desc : "");
			char *nl = strchr(desc, '\n');
			if (nl)
				*nl = 0;
			printf("  %-34s %s%s\n", full, desc, note);
		}
	}
}
