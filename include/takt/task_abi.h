/* The C entry point of a takt task built as a shared object (task ABI version 1). */
/*
 * A task-set file may name a shared object as a task's program
 * (`program: ./libmytask.so`). takt loads it with dlopen() and calls the one symbol
 * it must export, TAKT_TASK_ENTRY_SYMBOL:
 *
 *     TAKT_TASK_EXPORT const takt_task_v1* takt_task_entry(void);
 *
 * The returned descriptor lives as long as the shared object is loaded. Only plain C
 * types cross this boundary, so a task may be built by any C or C++ compiler, and no
 * exception may cross it: every function reports failure through its return value
 * and a message written into the caller's buffer.
 *
 * Versioning. `abi_version` is the first member of the descriptor in every version;
 * takt reads it first and refuses a task built for a version it does not support,
 * naming both versions. Structures passed by takt start with their own `size`, so
 * a later takt may append members without breaking tasks built for this version.
 *
 * A C++ task class gets this entry point from takt::export_task in
 * <takt/task.hpp>; see docs/writing-tasks.md.
 */
#ifndef TAKT_TASK_ABI_H
#define TAKT_TASK_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The task ABI version this header describes. */
#define TAKT_TASK_ABI_VERSION 1u

/* The name of the symbol a task's shared object exports. */
#define TAKT_TASK_ENTRY_SYMBOL "takt_task_entry"

/* Marks the entry point as exported even when the shared object is built with
   hidden visibility (-fvisibility=hidden), which is recommended. */
#if defined(__GNUC__) || defined(__clang__)
#define TAKT_TASK_EXPORT __attribute__((visibility("default")))
#else
#define TAKT_TASK_EXPORT
#endif

/* Return values of init and run. */
#define TAKT_TASK_OK 0
#define TAKT_TASK_FAILED 1

/* What init receives: the task's name and arguments from the task-set file. */
typedef struct takt_task_args_v1 {
  uint32_t size;           /* sizeof(takt_task_args_v1) as takt was compiled */
  const char* task_name;   /* the task's name in the task-set file */
  uint32_t argc;           /* number of arguments (the task's `args:` list) */
  const char* const* argv; /* argc strings, NUL-terminated; argv[argc] is NULL */
  uint32_t cores;          /* cores granted to the task (1 for a sequential task) */
} takt_task_args_v1;

/* What run receives: one job. Times are nanoseconds of CLOCK_MONOTONIC. */
typedef struct takt_job_v1 {
  uint32_t size; /* sizeof(takt_job_v1) as takt was compiled */
  const char* task_name;
  uint64_t index;      /* job index k, from 0 */
  int64_t release_ns;  /* release time: offset + k * period after the run's origin */
  int64_t deadline_ns; /* absolute deadline: release + relative deadline */
  int64_t period_ns;
  int64_t relative_deadline_ns;
  uint32_t cores;
} takt_job_v1;

/* The descriptor a task exports. */
typedef struct takt_task_v1 {
  uint32_t abi_version; /* TAKT_TASK_ABI_VERSION the task was built against */
  uint32_t size;        /* sizeof(takt_task_v1) as the task was compiled */
  const char* name;     /* the program's name, used in messages */

  /* Called once before the first job. Stores the task's state in *state (may be
     NULL for a stateless task). Returns TAKT_TASK_OK, or TAKT_TASK_FAILED after
     writing a NUL-terminated message of at most error_size bytes into error.
     May be NULL: nothing to initialise. */
  int (*init)(const takt_task_args_v1* args, void** state, char* error, size_t error_size);

  /* Called once per job, possibly on different threads for different jobs, never
     for two jobs of the same task at once. Returns TAKT_TASK_OK, or
     TAKT_TASK_FAILED with a message as for init; the job then counts as missed and
     the run goes on. Must not be NULL. */
  int (*run)(void* state, const takt_job_v1* job, char* error, size_t error_size);

  /* Called once after the last job, and only when init succeeded; releases the
     state. May be NULL. */
  void (*finalize)(void* state);
} takt_task_v1;

/* The entry point's type. */
typedef const takt_task_v1* (*takt_task_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* TAKT_TASK_ABI_H */
