/* mfile_format.h - the measurement file format, defined once.
 *
 * The collector writes one file per thread and one per process image into
 * the measurement directory; `culprit dump` and `culprit prof` read them.
 * This header is the only definition of the layout: the writer
 * (mfile_write.c) and the validating reader (mfile_read.c) both use it.
 * doc/measurement-format.md describes the same thing in prose.
 *
 * A file is a 32-byte header followed by sections.  Every section is a
 * 16-byte section header (tag, CRC-32C of the payload, payload length)
 * followed by the payload, zero-padded to a multiple of 8 bytes.  The last
 * section is always MFILE_TAG_END; a file without it was cut short.  All
 * integers are little-endian; strings are a u32 length and that many bytes
 * (no terminator); doubles are IEEE-754 binary64.
 *
 * Versioning: readers refuse a newer major version and skip sections they
 * do not know when only the minor version is newer.
 */
#ifndef CULPRIT_MFILE_FORMAT_H
#define CULPRIT_MFILE_FORMAT_H

#include <stdint.h>

#include "idle_causes.h"

#define MFILE_MAGIC "\x89" "CULPRT\n"	/* 8 bytes; \x89 and \n catch text-mode damage */
#define MFILE_MAGIC_LEN 8
#define MFILE_VERSION_MAJOR 1
#define MFILE_VERSION_MINOR 5

#define MFILE_HEADER_SIZE 32
#define MFILE_SECTION_HEADER_SIZE 16

/* File header, at offset 0:
 *   0  magic[8]
 *   8  u16 version_major
 *  10  u16 version_minor
 *  12  u32 kind            (enum mfile_kind)
 *  16  u32 header_size     (MFILE_HEADER_SIZE)
 *  20  u32 flags           (0; reserved)
 *  24  u32 reserved        (0)
 *  28  u32 crc             CRC-32C of bytes 0..27
 */
enum mfile_kind {
	MFILE_PROCESS = 1,	/* one process image: identity, events, load map */
	MFILE_THREAD = 2,	/* one thread: its calling-context tree */
};

#define MFILE_TAG(a, b, c, d) \
	((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)

/* Section tags.  Process files hold IDNT ARGV EVNT MODS [NOTE] END; thread
 * files hold THRD COLS CNTR NODE MTRC [WAIT] [TASK] [LNAM] [TRAC] [NOTE] END. */
#define MFILE_TAG_IDNT MFILE_TAG('I', 'D', 'N', 'T')	/* process identity */
#define MFILE_TAG_ARGV MFILE_TAG('A', 'R', 'G', 'V')	/* command line */
#define MFILE_TAG_EVNT MFILE_TAG('E', 'V', 'N', 'T')	/* sampled events */
#define MFILE_TAG_MODS MFILE_TAG('M', 'O', 'D', 'S')	/* load map over time */
#define MFILE_TAG_THRD MFILE_TAG('T', 'H', 'R', 'D')	/* thread identity */
#define MFILE_TAG_COLS MFILE_TAG('C', 'O', 'L', 'S')	/* metric columns */
#define MFILE_TAG_CNTR MFILE_TAG('C', 'N', 'T', 'R')	/* named counters */
#define MFILE_TAG_NODE MFILE_TAG('N', 'O', 'D', 'E')	/* calling-context tree */
#define MFILE_TAG_MTRC MFILE_TAG('M', 'T', 'R', 'C')	/* metric values */
#define MFILE_TAG_NOTE MFILE_TAG('N', 'O', 'T', 'E')	/* free-text notes */
#define MFILE_TAG_WAIT MFILE_TAG('W', 'A', 'I', 'T')	/* blocking waits (minor 1) */
/* A snapshot written while the program ran (minor 2): u64 realtime ns. */
#define MFILE_TAG_SNAP MFILE_TAG('S', 'N', 'A', 'P')
/* The samples in time order (minor 3). */
#define MFILE_TAG_TRAC MFILE_TAG('T', 'R', 'A', 'C')
/* Task sizes and waits by type (minor 4). */
#define MFILE_TAG_TASK MFILE_TAG('T', 'A', 'S', 'K')
/* Names of logical frames (minor 5). */
#define MFILE_TAG_LNAM MFILE_TAG('L', 'N', 'A', 'M')
#define MFILE_TAG_END  MFILE_TAG('E', 'N', 'D', '.')	/* u32 count of sections before it, u32 0 */

/* IDNT payload:
 *   u64 nonce              random; thread files name their process by it
 *   u32 pid, u32 ppid
 *   u32 generation         0 for a new process, +1 for each exec
 *   i32 mpi_rank           -1 when not launched as an MPI rank
 *   u64 start_realtime_ns, u64 start_monotonic_ns
 *   u64 end_realtime_ns,   u64 end_monotonic_ns
 *   u32 end_reason         enum mfile_end_reason
 *   i32 end_status         exit status or signal number; -1 unknown
 *   u32 thread_count       threads measured over the image's life
 *   str host, str exe, str cwd, str rank_source (the variable giving the rank)
 *   str experiment         the run that produced it (culprit run's id)
 */
enum mfile_end_reason {
	MFILE_END_UNKNOWN = 0,
	MFILE_END_EXIT = 1,		/* exit() or return from main */
	MFILE_END_EXIT_NOW = 2,		/* _exit() / _Exit() */
	MFILE_END_EXEC = 3,		/* replaced by exec; the next generation follows */
	MFILE_END_SIGNAL = 4,		/* a fatal signal; end_status is its number */
	MFILE_END_THREAD_EXIT = 5,	/* thread files: the thread returned or called pthread_exit */
	MFILE_END_CANCEL = 6,		/* thread files: cancelled or exited without notice */
	MFILE_END_MAX = 6
};

/* ARGV payload: u32 argc, then argc strings. */

/* EVNT payload: u32 count, then per event:
 *   str name               lower case as users write it: cputime, realtime, cycles
 *   str unit               unit of the raw values: "ns" or "count"
 *   u32 source             enum mfile_event_source
 *   u32 flags              MFILE_EVENT_FREQ: `period` is samples per second
 *   u64 period
 *   u32 perf_type, u32 reserved
 *   u64 perf_config, u64 perf_config1, u64 perf_config2
 */
enum mfile_event_source {
	MFILE_SRC_PERF = 1,		/* perf_event counter with a ring buffer */
	MFILE_SRC_CPU_TIMER = 2,	/* POSIX timer on the thread CPU-time clock */
	MFILE_SRC_REAL_TIMER = 3,	/* POSIX timer on the monotonic clock */
	MFILE_SRC_MAX = 3
};
#define MFILE_EVENT_FREQ 0x1u

/* MODS payload: u32 count, then per module:
 *   u32 id                 referenced by FRAME nodes; 0 is never used
 *   u32 flags              MFILE_MOD_*
 *   u64 load_bias          address = ELF virtual address + load_bias
 *   u64 load_ns, u64 unload_ns    monotonic; unload_ns 0 = still mapped at the end
 *   str path               absolute, or for the vdso a file name in the directory
 *   u32 build_id_len, bytes
 *   u32 segment_count, then per segment:
 *     u64 vaddr, u64 memsz, u64 file_offset, u32 p_flags, u32 reserved
 */
#define MFILE_MOD_MAIN 0x1u		/* the program's executable */
#define MFILE_MOD_VDSO 0x2u		/* kernel vdso, saved as a file beside the measurements */
#define MFILE_MOD_COLLECTOR 0x4u	/* culprit's own preload library */
#define MFILE_MOD_FLAGS 0x7u

/* THRD payload:
 *   u64 process_nonce      the IDNT nonce of the process image it ran in
 *   u32 pid, u32 generation, u32 seq (0 = main thread, then creation order), u32 tid
 *   u64 start_realtime_ns, u64 end_realtime_ns
 *   u32 end_reason, u32 flags (0; reserved)
 *   u32 creator_seq, u32 creator_node  context of the thread's creation in the
 *                          creator's tree (MFILE_NONE when unknown)
 *   str name               the thread's name (comm)
 */
#define MFILE_NONE 0xffffffffu

/* COLS payload: u32 count, then per column: u32 event index (into EVNT), str metric.
 * Metric names: "samples", "work", "idleness", "idleness:<cause>", ... */

/* CNTR payload: u32 count, then per counter: str name, u64 value.  Counters
 * say what happened to samples (taken, dropped and why, partial unwinds). */

/* NODE payload: u32 count, then per node, 24 bytes:
 *   u32 parent             an earlier node; MFILE_NONE for node 0, the root
 *   u8  kind               enum mfile_node_kind
 *   u8  flags              MFILE_NODE_*
 *   u16 reserved
 *   u32 module             FRAME: module id (0 = no module; key is a raw address)
 *   u32 reserved
 *   u64 key                FRAME: ELF virtual address in the module
 *                          MARKER: enum mfile_marker
 *                          REF: creator thread seq << 32 | node in that thread's tree
 *                          LOGICAL: plugin-defined
 */
#define MFILE_NODE_SIZE 24
enum mfile_node_kind {
	MFILE_NODE_ROOT = 0,	/* node 0 and only node 0 */
	MFILE_NODE_FRAME = 1,	/* a native frame */
	MFILE_NODE_MARKER = 2,	/* a synthetic root for paths that are not complete */
	MFILE_NODE_REF = 3,	/* a logical root: a context in another thread's tree */
	MFILE_NODE_LOGICAL = 4,	/* a source-level frame made by an unwind plugin */
	MFILE_NODE_KIND_MAX = 4
};
#define MFILE_NODE_EXACT 0x1u	/* FRAME: key is the interrupted instruction, not a return address */
#define MFILE_NODE_FLAGS 0x1u

enum mfile_marker {
	MFILE_MARKER_PARTIAL = 1,	/* the unwind stopped before the thread's root */
	MFILE_MARKER_TRUNCATED = 2,	/* deeper than the depth cap; outer frames dropped */
	MFILE_MARKER_MAX = 2
};

/* MTRC payload: u32 count, then per value, 16 bytes: u32 node, u32 column, f64 value.
 * Values are exclusive (at that node only); zero values are omitted. */
#define MFILE_VALUE_SIZE 16

/* NOTE payload: u32 count, then that many strings. */
/* WAIT payload (thread files, version 1.1; absent when the thread never
 * blocked): u32 count, then per wait site, 56 bytes:
 *   u32 kind               enum culprit_block_kind (unwind-plugins/plugin.h)
 *   u32 cause              the COLS column of the idleness cause it counted
 *                          as ("idleness:lock", of the first event)
 *   u32 module, u32 reserved
 *   u64 site               the return address into the waiting call's caller:
 *                          ELF virtual address in MODULE (0: a raw address)
 *   u64 object             the lock's, condition's, ... address (0: none)
 *   u64 count, u64 total_ns, u64 max_ns    the waits, in CLOCK_MONOTONIC
 */
#define MFILE_WAIT_SIZE 56

/* TASK payload (thread files, version 1.4; absent when a runtime plugin
 * reported no task ending on the thread): u32 count, then per task type
 * (the call that created the tasks), 288 bytes:
 *   u32 module, u32 reserved
 *   u64 site               the creating call's return address: ELF virtual
 *                          address in MODULE (0: a raw address)
 *   u64 count              tasks of the type that ended on the thread
 *   u64 size_ns            their running time in all, CLOCK_MONOTONIC, the
 *                          time each was set aside (its children ran) left out
 *   u64 wait_ns            the time the thread looked for work before each
 *   u32 size_hist[32]      tasks by size: bucket b counts [2^b, 2^(b+1)) ns
 *                          (bucket 0 also 0 ns; bucket 31 all from 2^31 ns)
 *   u32 wait_hist[32]      tasks by the wait before them, alike */
#define MFILE_TASK_BUCKETS 32
#define MFILE_TASK_SIZE (8 + 4 * 8 + 2 * 4 * MFILE_TASK_BUCKETS)

/* LNAM payload (thread files, version 1.5; absent when no plugin made
 * logical frames): u32 count, then per procedure:
 *   u32 namespace          a LOGICAL node's module (CULPRIT_LOGICAL_*)
 *   u32 line_bits          a key's low bits that hold the line (0: none)
 *   u64 ident              key >> line_bits: the nodes this names
 *   u32 first_line         where the procedure is defined (0: unknown)
 *   u32 reserved
 *   str name               the procedure ("Model.forward")
 *   str file               its source file ("" unknown)
 * The same ident names the same procedure in every thread of the run. */
#define MFILE_LNAM_MIN 32	/* bytes of an entry with empty strings */
#define MFILE_LNAM_LINE_BITS_MAX 32

/* TRAC payload (thread files, version 1.3; absent when not traced):
 *   u64 base_ns            CLOCK_MONOTONIC; records' times count from it
 *   u64 records            records that follow
 *   u64 dropped            samples not recorded: the trace was at its limit
 *   u64 bytes              the records' length
 *   then the records, one per sample, in time order, each:
 *   u8  head               bits 0-3: the thread's state (MFILE_TRACE_*);
 *                          MFILE_TRACE_HAS_*: what follows besides time and value
 *   [u8 event]             the event's index into EVNT (else 0)
 *   svarint time           the gap, in ns, since the previous record (the
 *                          first: since base_ns), less the previous gap
 *                          (0 at first): samples come at a steady rate, so
 *                          what is left is small
 *   svarint value          the event's value, less the previous record's of
 *                          the same event (0 before the first)
 *   [svarint node]         the node, less the previous record's node (which
 *                          starts at 0); without it, the node is the
 *                          previous one.  Idle records have no node.
 *   [varint working, varint idle]   the process's workers working and idle
 *                          as the sample saw them (else as before; 0 0 at
 *                          first)
 * A varint is 7 bits a byte, least significant first, the high bit set on
 * every byte but the last (at most 10 bytes); an svarint is a zigzag-mapped
 * signed value (0, -1, 1, -2 ... as 0, 1, 2, 3 ...) as a varint. */
enum mfile_trace_state {
	MFILE_TRACE_WORK = 0,		/* running the program (its node says where) */
	MFILE_TRACE_MEASUREMENT = 8,	/* in culprit's own work */
	/* The other states are an idle worker's, one per cause: idle_causes.h
	 * gives each cause's (1 + the cause for the first seven; GIL and MPI,
	 * minor 5, past the measurement's 8). */
	MFILE_TRACE_IDLE = 1,
};
/* The largest state: a union's size is its largest member's. */
union mfile_trace_idle_states {
#define MFILE_TRACE_IDLE_STATE(id, name, state, ...) char id[state];
	CULPRIT_IDLE_CAUSE_TABLE(MFILE_TRACE_IDLE_STATE)
#undef MFILE_TRACE_IDLE_STATE
	char measurement[MFILE_TRACE_MEASUREMENT];
};
#define MFILE_TRACE_STATE_MAX ((uint32_t)sizeof(union mfile_trace_idle_states))
/* The state of an idle worker waiting for CAUSE.  async-signal-safe. */
static inline uint32_t mfile_trace_idle_state(uint32_t cause)
{
	return idle_cause(cause)->trace_state;
}
/* Every state but work and the measurement's is an idle worker's. */
static inline int mfile_trace_is_idle(uint32_t state)
{
	return state != MFILE_TRACE_WORK && state != MFILE_TRACE_MEASUREMENT &&
	       state <= MFILE_TRACE_STATE_MAX;
}
#define MFILE_TRACE_STATE_MASK 0x0fu
_Static_assert(sizeof(union mfile_trace_idle_states) <= MFILE_TRACE_STATE_MASK,
	       "a trace state takes the low 4 bits of a record's head");
#define MFILE_TRACE_HAS_NODE 0x10u
#define MFILE_TRACE_HAS_COUNTS 0x20u
#define MFILE_TRACE_HAS_EVENT 0x40u
#define MFILE_TRACE_RECORD_MAX (2 + 3 * 10 + 2 * 5)	/* bytes, at most */

#endif
