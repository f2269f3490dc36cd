/* Where the model files (models/{gpu,link,switch,nic,system,llm}/) are
 * found, and how a model id names one of them. */
#pragma once

#include <glib.h>

/* The models directory: $NVLSIM_MODELS when set and not empty; else the
 * source tree's models/ when it exists (a build run in place); else the
 * installed $(pkgdatadir)/models. The string is owned by the environment or
 * the program: do not free it. */
const char *hw_models_dir(void);

/* Whether id is a model id: a file stem, not empty, with no directory part,
 * not hidden. */
gboolean hw_models_id_is_plain(const char *id);

/* The ids (stems of the *.ini files, hidden ones left out) in folder,
 * sorted; NULL and an error when the folder cannot be read. */
GPtrArray *hw_models_ids(const char *folder, GError **error);

/* The ids in folder sorted and joined with ", "; NULL when there are none
 * or the folder cannot be read. */
char *hw_models_ids_joined(const char *folder);

/* The path of model id of one kind (models_dir/dir/id.ini; what, when not
 * NULL, names the kind in messages), or NULL and a G_FILE_ERROR without file context (the
 * caller adds it) when id is not plain or names no file; the message then
 * lists the ids that exist. Free with g_free. */
char *hw_models_file(const char *models_dir, const char *dir, const char *what, const char *id,
                     GError **error);
