/* Key tables: how a group of a model file (GKeyFile) maps onto a C struct.
 *
 * One table per group lists each key's name, its kind (which fixes its
 * unit), where it goes in the struct, whether it is required, and a line of
 * help. One loader walks the table, parses every value once with the unit
 * parser, and rejects keys the table does not name: a typo is an error,
 * never a silent default.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum HwKeyKind {
    HW_KEY_TIME_PS,     /* uint64_t, "250ns" */
    HW_KEY_SIZE_BYTES,  /* uint64_t, "80GB" */
    HW_KEY_BYTES_PER_S, /* uint64_t, "450GB/s" or "400Gbit/s" */
    HW_KEY_FLOPS_PER_S, /* uint64_t, "989TFLOP/s" */
    HW_KEY_HZ,          /* uint64_t, "1410MHz" */
    HW_KEY_COUNT,       /* uint64_t, a whole number without unit */
    HW_KEY_STRING,      /* char *, owned by the struct */
} HwKeyKind;

typedef struct HwKey {
    const char *name;
    HwKeyKind kind;
    size_t offset; /* of the field in the struct being filled */
    bool required; /* if not, an absent key leaves the field as it was */
    const char *help;
} HwKey;

#define HW_KEY_ERROR (hw_key_error_quark())
GQuark hw_key_error_quark(void);

typedef enum HwKeyError {
    HW_KEY_ERROR_MISSING, /* a required key or the group is absent */
    HW_KEY_ERROR_UNKNOWN, /* a key the table does not name */
} HwKeyError;

/* Fills out (a struct laid out as keys says) from group of kf. path names
 * the file in messages: "PATH: [group] key: what was wrong". On error,
 * fields already filled stay filled (strings included: the caller frees the
 * struct as usual) and false is returned. */
bool hw_keys_load(GKeyFile *kf, const char *path, const char *group, const HwKey *keys,
                  size_t n_keys, void *out, GError **error);
