/* SPDX-License-Identifier: Apache-2.0 */
/* Where nvlsim's data lies: the folder that holds models/, scenarios/,
 * plots/ and data/measurements/ (the source tree for a build run in place,
 * $(pkgdatadir) once installed). */
#pragma once

#include <glib.h>

/* How sim_data_dir() found the data. */
typedef enum SimDataOrigin {
    SIM_DATA_BUILD_TREE, /* the program is the build tree's: the source tree's files */
    SIM_DATA_BESIDE,     /* installed, found from the program's own folder (a moved install) */
    SIM_DATA_INSTALLED,  /* installed, at the $(pkgdatadir) fixed at build time */
} SimDataOrigin;

/* The data folder, found once per process by these rules, in order:
 *  1. the running program (/proc/self/exe) is one the build tree built
 *     (nvlsim in the build folder, a test under its tests/): the source
 *     tree, whose files a build run in place reads;
 *  2. the program's folder, then the way from $(bindir) to $(pkgdatadir)
 *     (../share/nvlsim by default), when that is a folder: an install
 *     moved as a whole after make install DESTDIR=...;
 *  3. $(pkgdatadir) as configured.
 * The last is returned even when it does not exist: loaders then name the
 * missing file. The string is the program's: do not free it. */
const char *sim_data_dir(void);

/* The rule that gave sim_data_dir(), and its name for people ("the source
 * tree, for the build tree's program", ...). */
SimDataOrigin sim_data_origin(void);
const char *sim_data_origin_name(SimDataOrigin origin);

/* sim_data_dir()/part (part relative, such as "models"), newly allocated. */
char *sim_data_path(const char *part);
