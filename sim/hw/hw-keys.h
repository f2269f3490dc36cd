/* SPDX-License-Identifier: Apache-2.0 */
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
    HW_KEY_COUNT,       /* uint64_t, a whole number without unit */
    HW_KEY_STRING,      /* char *, owned by the struct */
    HW_KEY_BOOL,        /* bool, "yes"/"no" ("true"/"false", "1"/"0" too) */
    HW_KEY_PROBABILITY, /* double in [0, 1), a chance of failure, "1e-12" (1 never delivers) */
    HW_KEY_FRACTION,    /* double in (0, 1], a share kept, "0.5" (0 never finishes) */
} HwKeyKind;

typedef struct HwKey {
    const char *name;
    HwKeyKind kind; /* which fixes the unit and, for a number, its range */
    size_t offset;  /* of the field in the struct being filled */
    bool required;  /* if not, an absent key leaves the field as it was */
    const char *help; /* what the key means; the range is the kind's (hw_key_range) */
} HwKey;

/* The values a key of a kind may take, in its base unit (ps, bytes,
 * bytes/s, FLOP/s, Hz, or none for a plain number): from min to max, a
 * bound left out when it is open. The loader refuses every other value, and
 * messages and listings say the range from these same fields
 * (hw_key_range_text), so that the two cannot drift apart. A loader may
 * narrow a unit kind's range for one key with a check of its own. */
typedef struct HwKeyRange {
    double min, max;
    bool min_open, max_open;
} HwKeyRange;

/* The range of kind, or NULL for a kind without one (counts, whose
 * checks are their loaders', strings, yes/no). */
const HwKeyRange *hw_key_range(HwKeyKind kind);

/* Whether value lies in the range of kind (NaN never does). */
bool hw_key_range_holds(HwKeyKind kind, double value);

/* The range of kind in words (newly allocated; NULL without a range): for
 * a plain number "a probability at least 0 and below 1, such as 1e-12";
 * for a unit kind its bounds in the largest unit that writes each as a
 * whole number, "0ps to 1s". Out-of-range errors read "'VALUE' is out of
 * range: expected TEXT". */
char *hw_key_range_text(HwKeyKind kind);

/* The least bandwidth a link model may have (bytes per second): the bottom
 * of HW_KEY_BYTES_PER_S's range, and what a slowed or noisy link must
 * still deliver, so that no transfer outlasts the simulated clock. */
#define HW_KEYS_MIN_BYTES_PER_S UINT64_C(100000000)
/* The same for a compute rate (FLOP/s): the bottom of HW_KEY_FLOPS_PER_S's
 * range, and what a peak at a fitted share must still reach. */
#define HW_KEYS_MIN_FLOPS_PER_S UINT64_C(1000000000)

/* One group's key table, for listings and property tests: the file kind
 * that holds it (such as "models/gpu/ID.ini"), the group, its keys. */
typedef struct HwKeyTable {
    const char *file;
    const char *group;
    const HwKey *keys;
    size_t n_keys;
} HwKeyTable;

#define HW_KEY_ERROR (hw_key_error_quark())
GQuark hw_key_error_quark(void);

typedef enum HwKeyError {
    HW_KEY_ERROR_MISSING, /* a required key or the group is absent */
    HW_KEY_ERROR_UNKNOWN, /* a key the table does not name */
    HW_KEY_ERROR_INVALID, /* a value of the wrong form or out of range */
} HwKeyError;

/* Loads the key file at path (what: what it should be, for messages, such
 * as "a model file"), read whole and checked line by line first
 * (core-text.h: a folder, bytes that are not text, overlong lines; then
 * every line blank, a # comment, a [group] or key = value under a group,
 * and no key twice in a group), so that errors name the line: "PATH:LINE:
 * what". With only_group, a second group is an error "PATH: [name]:
 * unknown group; expected [only_group] only". NULL on error. */
GKeyFile *hw_keys_file_load(const char *path, const char *what, const char *only_group,
                            GError **error);

/* The same with the file's text given: data (length bytes; (gsize)-1: up
 * to its NUL) stands for the file at path; NULL data reads path. For
 * fuzzing, and for callers that hold the text. Free with g_key_file_unref. */
GKeyFile *hw_keys_open(const char *path, const char *what, const char *only_group, const char *data,
                       gsize length, GError **error);

/* The same checks on text already read (length bytes; a scenario given as
 * a string), named name in messages, into kf. */
bool hw_keys_data_load(GKeyFile *kf, const char *name, const char *data, gsize length,
                       GError **error);

/* The text of key in group, unescaped as g_key_file_get_string does; NULL
 * and an error (G_KEY_FILE_ERROR_KEY_NOT_FOUND when the key is absent) when
 * it is absent or its escapes are malformed (GLib keeps those as they are
 * and reports them; so do these). Free with g_free. */
char *hw_keys_get_string(GKeyFile *kf, const char *group, const char *key, GError **error);
/* The same for a list (g_key_file_get_string_list); *length is its count
 * (0 on error). Free with g_strfreev. */
char **hw_keys_get_string_list(GKeyFile *kf, const char *group, const char *key, gsize *length,
                               GError **error);

/* Fills out (a struct laid out as keys says) from group of kf. path names
 * the file in messages: "PATH: [group] key: what was wrong". On error,
 * fields already filled stay filled (strings included: the caller frees the
 * struct as usual) and false is returned. */
bool hw_keys_load(GKeyFile *kf, const char *path, const char *group, const HwKey *keys,
                  size_t n_keys, void *out, GError **error);

/* The name among names[0..n_names) that text equals, as its index in *out;
 * or an error "PATH: [group] key: 'text' is not one of: a, b, c". For keys
 * whose value picks one of a few words (a link's kind). */
bool hw_keys_choice(const char *path, const char *group, const char *key, const char *text,
                    const char *const *names, size_t n_names, size_t *out, GError **error);

/* A yes/no value (HW_KEY_BOOL's words: yes, no, true, false, 1, 0, in any
 * case) into *out; else an error "'text' is not a yes/no value: ...". */
bool hw_keys_parse_bool(const char *text, bool *out, GError **error);

/* True when min <= value <= max; else an error "PATH: [group] key: VALUE
 * is out of range: expected MIN to MAX". */
bool hw_keys_check_range(const char *path, const char *group, const char *key, uint64_t value,
                         uint64_t min, uint64_t max, GError **error);

/* Sets an HW_KEY_ERROR_INVALID error "PATH: [group] key: " followed by the
 * formatted text; returns false, so that checks can end with
 * "return hw_keys_fail(...)". */
bool hw_keys_fail(GError **error, const char *path, const char *group, const char *key,
                  const char *format, ...) G_GNUC_PRINTF(5, 6);

/* The same without the "PATH: [group] key: " prefix, for checks whose
 * message names what was wrong its own way. */
bool hw_keys_failf(GError **error, const char *format, ...) G_GNUC_PRINTF(2, 3);

/* The shortest decimal text that reads back as value ("0.9999999999999999",
 * not "1" as %g would have it), newly allocated. */
char *hw_keys_number_text(double value);

/* Reads the digits at *p (advancing it past them) into *out, saturating at
 * UINT32_MAX, far above any count of GPUs or links; false when *p is not a
 * digit. For list items such as "0-3x2" or "3:1". */
bool hw_keys_take_number(const char **p, uint64_t *out);
