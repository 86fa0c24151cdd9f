/* schema.h - the names in culprit's database, written once: the tables,
 * the context kinds, the metrics and the causes of idleness.  `culprit
 * prof` writes them (postmortem/), every reader reads them (dbread/).
 * doc/schema.md says what each means; PRAGMA user_version is
 * DB_SCHEMA_VERSION.  SQL text uses the names through these macros where
 * C code chooses them, and spells them out inside fixed statements. */
#ifndef CULPRIT_SCHEMA_H
#define CULPRIT_SCHEMA_H

#include "idle_causes.h"

#define DB_SCHEMA_VERSION 12

/* The tree is stored with its names by number (stored_contexts,
 * stored_names).  The id of the name bound as parameter P, for
 * comparing with IS: NULL for a null P, -1 for a name not there. */
#define NAME_ID(p)                                                            \
	"(CASE WHEN " p " IS NULL THEN NULL ELSE coalesce((SELECT id FROM stored_names " \
	"WHERE name = " p "), -1) END)"

/* ---- tables and views ----
 * The rule: a table named stored_* is storage (numbers for names, free to
 * change with a version); every other table and view is the documented
 * interface (doc/schema.md). */
#define TBL_INFO		"culprit_info"
#define TBL_PROCESSES		"processes"
#define TBL_THREADS		"threads"
#define TBL_THREAD_COUNTERS	"thread_counters"
#define TBL_EVENTS		"events"
#define TBL_METRICS		"metrics"
#define TBL_MODULES		"modules"
#define TBL_NOTES		"notes"
#define TBL_CONTEXTS		"contexts"
#define TBL_CONTEXT_TREE	"stored_contexts"
#define TBL_NAMES		"stored_names"
#define TBL_TRACE		"trace"
#define TBL_EXPERIMENTS		"experiments"
#define TBL_EXPERIMENT_VALUES	"stored_experiment_values"
#define VIEW_TASK_TYPES		"task_types"
#define VIEW_TASK_HISTOGRAMS	"task_histograms"
#define VIEW_PARALLELISM	"parallelism"
#define TBL_CONTEXT_METRICS	"context_metrics"
#define TBL_CONTEXT_THREAD_METRICS "context_thread_metrics"
#define TBL_PROCEDURE_METRICS	"procedure_metrics"
#define TBL_THREAD_METRICS	"thread_metrics"
#define TBL_OVERHEAD_RULES	"overhead_rules"
#define TBL_MEASUREMENT_QUALITY	"measurement_quality"
#define TBL_DIAGNOSES		"diagnoses"
#define VIEW_EFFORT_SUMMARY	"effort_summary"
#define TBL_WAITS		"waits"
#define VIEW_WAIT_SITES		"wait_sites"

/* Every table and view of the schema, which a reader may expect to find:
 * culprit prof makes them all, empty where a run has nothing for them. */
#define DB_TABLES_AND_VIEWS                                                   \
	"culprit_info", "processes", "experiments", "threads", "thread_counters", \
	"events", "metrics", "modules", "notes", "stored_names", "stored_contexts", \
	"contexts", "stored_values", "stored_thread_values", "context_values", \
	"context_thread_values", "stored_experiment_values", "experiment_metrics", \
	"value_threads", "context_thread_all", "context_thread_metrics",       \
	"context_rank_metrics", "context_metrics", "trace", "parallelism",     \
	"context_parallelism", "procedure_metrics", "waits", "tasks",          \
	"stored_task_buckets", "task_types", "task_histograms", "thread_metrics",     \
	"overhead_rules", "measurement_quality", "diagnoses", "context_paths", \
	"procedure_callers", "wait_sites", "thread_summary", "effort_summary", \
	"thread_effort_summary", "procedure_overhead"

/* culprit_info's word on idleness: whether some runtime plugin followed
 * the workers' states. */
#define INFO_IDLENESS_KEY	"idleness"
#define INFO_IDLENESS_MEASURED	"measured"
#define INFO_IDLENESS_UNMEASURED "not measured"

/* culprit_info's mark of a database culprit made. */
#define INFO_FORMAT_KEY		"format"
#define INFO_FORMAT_VALUE	"culprit"

/* ---- contexts.kind ---- */
#define KIND_ROOT		"root"		/* the program, a truncated unwind */
#define KIND_FRAME		"frame"		/* a procedure's frame */
#define KIND_INLINED		"inlined"	/* a frame inlined into its caller */
#define KIND_CALLSITE		"callsite"	/* the line a frame called from */
#define KIND_STATEMENT		"statement"	/* a sampled line */

/* ---- metrics (metrics.metric, *_metrics.metric) ---- */
#define MET_SAMPLES		"samples"
#define MET_WORK		"work"
#define MET_IDLENESS		"idleness"
#define MET_OVERHEAD		"overhead"
#define MET_USEFUL		"useful_work"
#define MET_EFFORT		"effort"	/* work + idleness: what % are of */
#define MET_MEASUREMENT		"measurement"	/* culprit's own callbacks */
/* Overhead by type: "overhead:" then the type ("overhead:scheduling"). */
#define MET_OVERHEAD_PREFIX	"overhead:"

/* ---- idleness by cause ---- */
/* "idleness:" then the cause's name (common/idle_causes.h, the one table
 * of the causes): CAUSE_METRIC(LOCK) is "idleness:lock". */
#define CAUSE_METRIC(id)	(idle_cause(CULPRIT_IDLE_##id)->metric)
/* thread_metrics only: the event's value in the thread's own samples
 * while it was idle (a wall-clock event sees it), by cause. */
#define MET_WAITED		"waited"
#define MET_WAITED_PREFIX	"waited:"

/* ---- measurement_quality.item ---- */
#define QUALITY_CULPRIT		"culprit"		/* culprit's own work */
#define QUALITY_CALLBACKS	"culprit:callbacks"	/* ... in its callbacks */
#define QUALITY_HANDLER		"culprit:handler"	/* ... in its sample handler */
#define QUALITY_SAMPLES		"samples"		/* samples taken */
#define QUALITY_PARTIAL		"samples:partial"	/* with a partial path */
#define QUALITY_TRUNCATED	"samples:truncated"	/* cut at the depth limit */
#define QUALITY_DROPPED		"samples:dropped"	/* dropped */
#define QUALITY_THROTTLED	"samples:throttled"	/* signals merged into later samples */
#define QUALITY_THREADS_MISSING	"threads:missing"	/* thread files not read */

/* ---- diagnoses.scope ---- */
#define DIAG_SCOPE_INCLUSIVE	"inclusive"	/* the context and all below it */
#define DIAG_SCOPE_RUNTIME	"runtime"	/* the frame's runtime calls */

#endif
