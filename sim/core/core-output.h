/* Output files that appear whole or not at all: everything is written to a
 * temporary file beside the destination, created as a plain fopen would
 * (0666 less the umask, applied by open itself, so no thread reads or sets
 * the umask), then flushed to disk and renamed into place; on failure the
 * temporary is removed. Errors (G_FILE_ERROR) read "PATH: cannot write:
 * reason" and name the destination, never the temporary.
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

/* Renames tmp_path (not taken) to path, or removes it and sets error. */
bool sim_output_rename(const char *tmp_path, const char *path, GError **error);
