/* SPDX-License-Identifier: Apache-2.0 */
/* Where the model files (models/{gpu,link,switch,nic,runtime,system,llm}/)
 * are found, and how a model id, or a file path in its place, names one. */
#pragma once

#include <glib.h>
#include <stdbool.h>

/* The models search path: the folders of $NVLSIM_MODELS (separated by ':',
 * empty ones ignored), then the shipped models (sim_data_dir()/models).
 * Each folder is laid out as models/ is and may hold any part of it (a
 * folder with system/my-box.ini alone is one); a file is taken from the
 * first folder that has it. The folders joined by ':'; the string is the
 * program's (interned): do not free it. Every models_dir parameter below
 * is such a path, or a single folder. */
const char *hw_models_dir(void);

/* The folders of the search path models_dir, in order, empty ones left
 * out; free with g_strfreev. */
GStrv hw_models_folders(const char *models_dir);

/* Whether every folder of models_dir is one; false and an error naming the
 * first that is not ("NVLSIM_MODELS: /x: no such folder" for the
 * environment's, "/x: no such models folder" else). */
bool hw_models_check(const char *models_dir, GError **error);

/* Whether id is a model id: a file stem, not empty, with no directory part,
 * not hidden. */
gboolean hw_models_id_is_plain(const char *id);

/* Whether ref, where an id is expected, is a file path instead: it holds a
 * '/' or ends in ".ini". */
gboolean hw_models_ref_is_path(const char *ref);

/* The ids (stems of the *.ini files, hidden ones left out) of kind dir
 * ("system", "llm" ...) in every folder of models_dir, each once, sorted;
 * a folder without dir/ has none. NULL and an error when a folder of the
 * path is missing or dir/ in one cannot be read. */
GPtrArray *hw_models_ids(const char *models_dir, const char *dir, GError **error);

/* Those ids joined with ", "; NULL when there are none or they cannot be
 * read. */
char *hw_models_ids_joined(const char *models_dir, const char *dir);

/* The path of model id of kind dir: FOLDER/dir/id.ini in the first folder
 * of models_dir that has it (what, when not NULL, names the kind in
 * messages). NULL and a G_FILE_ERROR without file context (the caller
 * adds it) when a folder of the path is missing, id is not plain or names
 * no file; the message then lists the ids that exist. Free with g_free. */
char *hw_models_file(const char *models_dir, const char *dir, const char *what, const char *id,
                     GError **error);

/* The same where a path may stand for the id (hw_models_ref_is_path): then
 * ref itself when something is there (its loader judges it), else NULL and
 * "REF: no such WHAT file". */
char *hw_models_find(const char *models_dir, const char *dir, const char *what, const char *ref,
                     GError **error);

/* The message part that says where id of kind dir was looked for and not
 * found ("F/dir/id.ini does not exist", or "dir/id.ini does not exist in
 * F1, F2" for a longer path); newly allocated. */
char *hw_models_missing(const char *models_dir, const char *dir, const char *id);
