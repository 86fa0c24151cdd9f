/* omp_null_tool.c - an OMPT tool that registers the callbacks culprit's
 * OpenMP plugin uses and does nothing in them: the cost of the tools
 * interface itself, for bench/omp_overhead.sh.  Loaded by libomp through
 * OMP_TOOL_LIBRARIES. */
#include <omp-tools.h>
#include <stddef.h>

static void thread_begin(ompt_thread_t type, ompt_data_t *thread) { (void)type; (void)thread; }
static void thread_end(ompt_data_t *thread) { (void)thread; }
static void parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
			   unsigned int requested, int flags, const void *codeptr)
{
	(void)task; (void)frame; (void)parallel; (void)requested; (void)flags; (void)codeptr;
}
static void parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags, const void *codeptr)
{
	(void)parallel; (void)task; (void)flags; (void)codeptr;
}
static void implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
			  unsigned int actual, unsigned int index, int flags)
{
	(void)endpoint; (void)parallel; (void)task; (void)actual; (void)index; (void)flags;
}
static void task_create(ompt_data_t *parent, const ompt_frame_t *frame, ompt_data_t *task,
			int flags, int has_dependences, const void *codeptr)
{
	(void)parent; (void)frame; (void)task; (void)flags; (void)has_dependences; (void)codeptr;
}
static void task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
	(void)prior; (void)status; (void)next;
}
static void sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
			     ompt_data_t *parallel, ompt_data_t *task, const void *codeptr)
{
	(void)kind; (void)endpoint; (void)parallel; (void)task; (void)codeptr;
}
static void mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
			  ompt_wait_id_t wait_id, const void *codeptr)
{
	(void)kind; (void)hint; (void)impl; (void)wait_id; (void)codeptr;
}
static void mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
	(void)kind; (void)wait_id; (void)codeptr;
}

#define REGISTER(event, fn) set(event, (ompt_callback_t)(void (*)(void))(fn))

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data)
{
	(void)device;
	(void)data;
	ompt_set_callback_t set = (ompt_set_callback_t)(void (*)(void))lookup("ompt_set_callback");
	if (!set)
		return 0;
	REGISTER(ompt_callback_thread_begin, thread_begin);
	REGISTER(ompt_callback_thread_end, thread_end);
	REGISTER(ompt_callback_parallel_begin, parallel_begin);
	REGISTER(ompt_callback_parallel_end, parallel_end);
	REGISTER(ompt_callback_implicit_task, implicit_task);
	REGISTER(ompt_callback_task_create, task_create);
	REGISTER(ompt_callback_task_schedule, task_schedule);
	REGISTER(ompt_callback_sync_region_wait, sync_region_wait);
	REGISTER(ompt_callback_mutex_acquire, mutex_acquire);
	REGISTER(ompt_callback_mutex_acquired, mutex_acquired);
	return 1;
}

static void finalize(ompt_data_t *data)
{
	(void)data;
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version);
ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
	static ompt_start_tool_result_t result = { initialize, finalize, { 0 } };
	(void)omp_version;
	(void)runtime_version;
	return &result;
}
