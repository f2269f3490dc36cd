/* SPDX-License-Identifier: Apache-2.0 */
/* Output files that appear whole or not at all: everything is written to a
 * temporary file beside the destination, created as a plain fopen would
 * (0666 less the umask, applied by open itself, so no thread reads or sets
 * the umask), then flushed to disk and renamed into place; on failure the
 * temporary is removed. Errors (G_FILE_ERROR) read "PATH: cannot write:
 * reason" and name the destination, never the temporary.
 *
 * Once sim_output_catch_signals has run, SIGINT, SIGTERM and SIGHUP
 * remove every temporary still open (in any thread) and stop the children
 * registered with sim_output_child_add, then end the process by the same
 * signal (exit status 128 + N): an output already renamed into place stays
 * whole, one not yet finished never appears.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdio.h>

/* A new temporary beside path, named ".BASE.XXXXXX" then suffix (which
 * may pick a program's output format: ".png"); its name in *tmp_path
 * (owned by the caller). Returns its descriptor, or -1 with error. */
int sim_output_temp(const char *path, const char *suffix, char **tmp_path, GError **error);

/* The same as a stream to write; a folder at path is refused at once
 * (it would only refuse the rename, after all the work). "-" is standard
 * output, and a path that exists and is no regular file (/dev/null, a
 * FIFO, a symbolic link) is written in place, as a rename would replace
 * it: *tmp_path is then NULL. */
FILE *sim_output_open(const char *path, char **tmp_path, GError **error);

/* Flushes f to disk, closes it and renames tmp_path (taken) to path; on
 * failure removes the temporary and sets error. Without a temporary
 * (tmp_path NULL) flushes and closes it (not standard output), the error
 * of a full device included. */
bool sim_output_commit(FILE *f, char *tmp_path, const char *path, GError **error);

/* Closes f (not standard output) and removes tmp_path (taken, NULL
 * without one): nothing is written. */
void sim_output_abandon(FILE *f, char *tmp_path);

/* Whether path could be written (its folder exists and takes a file, and
 * path is not a folder), tried with a temporary that is removed: for a
 * command that writes several files, before it writes any. */
bool sim_output_check(const char *path, GError **error);

/* Renames tmp_path (not taken) to path, or removes it and sets error. */
bool sim_output_rename(const char *tmp_path, const char *path, GError **error);

/* Removes a temporary of sim_output_temp (tmp_path not taken) and forgets
 * it: a signal no longer concerns it. */
void sim_output_temp_remove(const char *tmp_path);

/* Writes length bytes of data to path whole or not at all (open, write,
 * commit); false and an error naming path otherwise. */
bool sim_output_write_all(const char *path, const char *data, size_t length, GError **error);

/* Installs the handler of SIGINT, SIGTERM and SIGHUP described above, for
 * each of them not ignored when it is called (so nohup and a shell's
 * background jobs keep theirs). Call once, from main(), before threads
 * start. */
void sim_output_catch_signals(void);

/* Registers a child process that leads its own process group (pid ==
 * pgid), which the handler stops with SIGTERM to the group; at most 8 at a
 * time (past them a child is not stopped). Remove it once reaped. */
void sim_output_child_add(int pid);
void sim_output_child_remove(int pid);
