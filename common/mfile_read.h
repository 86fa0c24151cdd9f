/* mfile_read.h - reads and validates measurement files (see mfile_format.h).
 *
 * Used by `culprit dump` and the postmortem.  Every byte is checked: a file
 * that loads is internally consistent (checksums, bounds, tree shape), and a
 * file that does not gets one message naming the offset, section and field
 * where the damage was found.  Cross-file checks (a FRAME's module exists in
 * the process's load map) are the caller's.
 */
#ifndef CULPRIT_MFILE_READ_H
#define CULPRIT_MFILE_READ_H

#include <stddef.h>
#include <stdint.h>
#include "mfile_format.h"

struct mfile_error {
	char msg[512];		/* one line, without the file name */
	uint64_t offset;	/* file offset where the problem was found */
	int reader_line;	/* line of mfile_read.c that detected it (for us) */
};

struct mfile_event {
	char *name;		/* "cputime", "cycles", ... */
	char *unit;		/* "ns" or "count" */
	uint32_t source;	/* enum mfile_event_source */
	uint32_t flags;		/* MFILE_EVENT_FREQ */
	uint64_t period;	/* period, or frequency with MFILE_EVENT_FREQ */
	uint32_t perf_type;
	uint64_t perf_config, perf_config1, perf_config2;
};

struct mfile_segment {
	uint64_t vaddr, memsz, file_offset;
	uint32_t p_flags;
};

struct mfile_module {
	uint32_t id;		/* nonzero, unique in the file */
	uint32_t flags;		/* MFILE_MOD_* */
	uint64_t load_bias;
	uint64_t load_ns, unload_ns;	/* monotonic; unload_ns 0 = never unloaded */
	char *path;
	unsigned char *build_id;
	uint32_t build_id_len;
	uint32_t nsegments;
	struct mfile_segment *segments;
};

struct mfile_process {
	uint64_t nonce;
	uint32_t pid, ppid, generation;
	int32_t mpi_rank;
	uint64_t start_realtime_ns, start_monotonic_ns;
	uint64_t end_realtime_ns, end_monotonic_ns;
	uint32_t end_reason;	/* enum mfile_end_reason */
	int32_t end_status;
	uint32_t thread_count;
	char *host, *exe, *cwd, *rank_source, *experiment;
	uint32_t argc;
	char **argv;
	uint32_t nevents;
	struct mfile_event *events;
	uint32_t nmodules;
	struct mfile_module *modules;
};

struct mfile_column {
	uint32_t event;		/* index into the process's events */
	char *metric;		/* "samples", "work", "idleness", ... */
};

struct mfile_counter {
	char *name;
	uint64_t value;
};

struct mfile_node {
	uint32_t parent;	/* < own index; MFILE_NONE for node 0 */
	uint8_t kind;		/* enum mfile_node_kind */
	uint8_t flags;		/* MFILE_NODE_* */
	uint32_t module;
	uint64_t key;
};

struct mfile_value {
	uint32_t node, column;
	double value;		/* finite */
};

struct mfile_wait {
	uint32_t kind, cause, module;
	uint64_t site, object, count, total_ns, max_ns;
};

/* TASK: tasks of one type (creation site) that ended on the thread. */
struct mfile_task {
	uint32_t module;
	uint64_t site, count, size_ns, wait_ns;
	uint32_t size_hist[MFILE_TASK_BUCKETS], wait_hist[MFILE_TASK_BUCKETS];
};

/* LNAM: a logical frame's procedure (mfile_format.h). */
struct mfile_lname {
	uint32_t ns, line_bits;
	uint64_t ident;
	uint32_t first_line;
	char *name, *file;
};

/* TRAC: the samples in time order, kept encoded (it can be millions of
 * them); mfile_trace_begin/next decode it.  Checked whole at load. */
struct mfile_trace {
	uint64_t base_ns;	/* CLOCK_MONOTONIC */
	uint64_t records;	/* 0 with no TRAC section */
	uint64_t dropped;	/* samples past the trace's size limit */
	uint64_t nbytes;
	const unsigned char *bytes;
};

struct mfile_trace_record {
	uint64_t time_ns;	/* CLOCK_MONOTONIC */
	uint64_t value;		/* the event's value in the sample */
	uint32_t event;		/* index into the process's events */
	uint32_t state;		/* enum mfile_trace_state */
	uint32_t node;		/* meaningful unless the state is idle */
	uint32_t working, idle;	/* the process's workers, as the sample saw them */
};

struct mfile_trace_iter {
	const unsigned char *p, *end;
	uint64_t left;
	struct mfile_trace_record last;
	uint64_t gap;		/* the last gap, two's complement: a hostile file's
				 * gaps wrap instead of overflowing */
	uint64_t value[256];	/* the last value of each event */
};

struct mfile_thread {
	uint64_t process_nonce;
	uint32_t pid, generation, seq, tid;
	uint64_t start_realtime_ns, end_realtime_ns;
	uint32_t end_reason, flags;
	uint32_t creator_seq, creator_node;
	char *name;
	uint32_t ncolumns;
	struct mfile_column *columns;
	uint32_t ncounters;
	struct mfile_counter *counters;
	uint32_t nnodes;
	struct mfile_node *nodes;
	uint32_t nvalues;
	struct mfile_value *values;
	uint32_t nwaits;		/* WAIT: where the thread blocked (may be 0) */
	struct mfile_wait *waits;
	uint32_t ntasks;		/* TASK: its tasks by type (may be 0) */
	struct mfile_task *tasks;
	uint32_t nlnames;		/* LNAM: names of its logical frames (may be 0) */
	struct mfile_lname *lnames;
	struct mfile_trace trace;
};

struct mfile_section_info {
	uint32_t tag;
	uint64_t offset;	/* of the section header */
	uint64_t length;	/* payload bytes */
};

struct mfile_block;

struct mfile {
	uint32_t kind;		/* enum mfile_kind */
	uint16_t version_major, version_minor;
	uint32_t nsections;
	struct mfile_section_info *sections;
	uint32_t nnotes;
	char **notes;
	/* Not 0: a snapshot written at this time (realtime ns) while the
	 * program ran; its end fields say when, and its end reason is
	 * UNKNOWN: the program never ended normally (SIGKILL...). */
	uint64_t snapshot_ns;
	union {
		struct mfile_process process;	/* kind == MFILE_PROCESS */
		struct mfile_thread thread;	/* kind == MFILE_THREAD */
	} u;
	struct mfile_block *blocks;	/* every allocation above, freed together */
};

/* Reads and validates the file at PATH.  On success stores a new mfile in
 * *OUT (free with mfile_free) and returns 0.  On failure returns -1 and
 * fills *ERR; nothing is allocated. */
int mfile_load(const char *path, struct mfile **out, struct mfile_error *err);

/* Same, for SIZE bytes at DATA (not retained). */
int mfile_parse(const void *data, size_t size, struct mfile **out,
		struct mfile_error *err);

void mfile_free(struct mfile *mf);

/* The tag as four printable characters in BUF; returns BUF. */
const char *mfile_tag_name(uint32_t tag, char buf[5]);

/* Names for enum values; "?" when out of range. */
const char *mfile_end_reason_name(uint32_t reason);
const char *mfile_source_name(uint32_t source);
const char *mfile_node_kind_name(uint32_t kind);
const char *mfile_marker_name(uint64_t marker);
/* A trace state as the database spells it: "work", "idle:barrier", ...,
 * "measurement". */
const char *mfile_trace_state_name(uint32_t state);

/* Decodes thread T's trace: begin, then next until it returns 0 (the end;
 * -1 where a record is damaged, which a loaded file never has). */
void mfile_trace_begin(const struct mfile_thread *t, struct mfile_trace_iter *it);
int mfile_trace_next(struct mfile_trace_iter *it, struct mfile_trace_record *r);

/* The name of logical node (NS, KEY) among thread T's, and in *LINE the
 * line its key holds; NULL when T does not name it. */
const struct mfile_lname *mfile_lname_find(const struct mfile_thread *t, uint32_t ns,
					   uint64_t key, uint32_t *line);

/* The value of the thread counter NAME, or 0 when absent. */
uint64_t mfile_thread_counter(const struct mfile_thread *t, const char *name);

#endif
