/* The models directory, found once per call from the environment and two
 * paths fixed at build time (see Makefile.am): the source tree's models/
 * so that an uninstalled build uses the files next to it, and the
 * installed copy under $(pkgdatadir).
 */
#include "hw/hw-models.h"

#include <glib.h>

#ifndef NVLSIM_PKG_MODELS_DIR
#error "NVLSIM_PKG_MODELS_DIR must be defined by the build (Makefile.am)"
#endif

const char *
hw_models_dir(void)
{
    const char *env = g_getenv("NVLSIM_MODELS");
    if (env != NULL && *env != '\0')
        return env;
#ifdef NVLSIM_SRC_MODELS_DIR
    if (g_file_test(NVLSIM_SRC_MODELS_DIR, G_FILE_TEST_IS_DIR))
        return NVLSIM_SRC_MODELS_DIR;
#endif
    return NVLSIM_PKG_MODELS_DIR;
}
