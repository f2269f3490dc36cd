/* SPDX-License-Identifier: Apache-2.0 */
/* nccl-tests' JSON output (-J FILE.json, nccl-tests 2.17.7 on; its
 * src/util.cu): one object with "args" (the command, args[0] the binary
 * that names the collective), "nccl_version" (NCCL's code, 22705),
 * "config" (nthreads, ngpus, graph, blocking_collectives and "devices",
 * the "#  Rank" lines as objects) and "results", one object per size with
 * "size", "type", "redop", "root" and "out_of_place" / "in_place" groups
 * of "time", "alg_bw", "bus_bw". The file is one line: every row is on
 * line 1, and a problem names the result's index.
 */
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "judge/judge-log-state.h"

static double
member_number(JsonObject *o, const char *name, bool *ok)
{
    JsonNode *n = json_object_get_member(o, name);
    if (n == NULL || !JSON_NODE_HOLDS_VALUE(n)) {
        *ok = false;
        return NAN;
    }
    GType t = json_node_get_value_type(n);
    if (t == G_TYPE_INT64)
        return (double)json_node_get_int(n);
    if (t == G_TYPE_DOUBLE)
        return json_node_get_double(n);
    if (t == G_TYPE_STRING) {
        char *end;
        const char *s = json_node_get_string(n);
        double v = g_ascii_strtod(s, &end);
        g_strstrip(end);
        if (end != s && *end == '\0')
            return v;
    }
    *ok = false;
    return NAN;
}

static const char *
member_string(JsonObject *o, const char *name)
{
    JsonNode *n = json_object_get_member(o, name);
    return n != NULL && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING
               ? json_node_get_string(n)
               : NULL;
}

/* A group of a result into row->*[k]; false when it is absent (null). */
static bool
read_group(JsonObject *result, const char *name, JudgeLogRow *row, int k, bool *ok)
{
    JsonNode *n = json_object_get_member(result, name);
    if (n == NULL || !JSON_NODE_HOLDS_OBJECT(n))
        return false;
    JsonObject *g = json_node_get_object(n);
    bool cpu = json_object_has_member(g, "cpu_time");
    row->time_us[k] = member_number(g, cpu ? "cpu_time" : "time", ok);
    row->algbw[k] = member_number(g, "alg_bw", ok);
    row->busbw[k] = member_number(g, "bus_bw", ok);
    /* JSON carries the full value (%lf): no rounding to judge. */
    g_snprintf(row->time_text[k], sizeof row->time_text[k], "%.6f", row->time_us[k]);
    g_snprintf(row->algbw_text[k], sizeof row->algbw_text[k], "%.6f", row->algbw[k]);
    g_snprintf(row->busbw_text[k], sizeof row->busbw_text[k], "%.6f", row->busbw[k]);
    row->has[k] = *ok && row->time_us[k] > 0;
    return true;
}

bool
judge_log_read_json(JudgeParse *p, const char *data, size_t length, GError **error)
{
    g_autoptr(JsonParser) parser = json_parser_new();
    GError *failed = NULL;
    if (!json_parser_load_from_data(parser, data, (gssize)length, &failed)) {
        g_set_error(error, JUDGE_LOG_ERROR, JUDGE_LOG_ERROR_MALFORMED, "%s: not JSON: %s",
                    p->log->path, failed->message);
        g_error_free(failed);
        return false;
    }
    JsonNode *root = json_parser_get_root(parser);
    JsonObject *top =
        root != NULL && JSON_NODE_HOLDS_OBJECT(root) ? json_node_get_object(root) : NULL;
    JsonNode *results = top != NULL ? json_object_get_member(top, "results") : NULL;
    if (results == NULL || !JSON_NODE_HOLDS_ARRAY(results)) {
        g_set_error(error, JUDGE_LOG_ERROR, JUDGE_LOG_ERROR_MALFORMED,
                    "%s: not nccl-tests' JSON output: expected an object with a \"results\" "
                    "list (nccl-tests -J FILE.json)",
                    p->log->path);
        return false;
    }
    JudgeRaw *raw = judge_raw_new(1);
    raw->table_line = 1;
    raw->columns.n_groups = 2;
    JsonNode *args = json_object_get_member(top, "args");
    if (args != NULL && JSON_NODE_HOLDS_ARRAY(args) &&
        json_array_get_length(json_node_get_array(args)) > 0) {
        JsonNode *first = json_array_get_element(json_node_get_array(args), 0);
        CollOp op;
        if (JSON_NODE_HOLDS_VALUE(first) && json_node_get_value_type(first) == G_TYPE_STRING &&
            judge_log_collective(json_node_get_string(first), &op))
            judge_raw_set_op(raw, op, "\"args\"", 1);
    }
    bool ok = true;
    double code = member_number(top, "nccl_version", &ok);
    if (ok && code > 0)
        raw->nccl_version = judge_nccl_version_text((uint64_t)code);
    JsonNode *config = json_object_get_member(top, "config");
    if (config != NULL && JSON_NODE_HOLDS_OBJECT(config)) {
        JsonObject *c = json_node_get_object(config);
        ok = true;
        double v = member_number(c, "nthreads", &ok);
        raw->n_threads = ok ? (uint32_t)v : 0;
        ok = true;
        v = member_number(c, "ngpus", &ok);
        raw->n_gpus_per_thread = ok ? (uint32_t)v : 0;
        ok = true;
        v = member_number(c, "graph", &ok);
        raw->cuda_graph = ok && v > 0;
        const char *blocking = member_string(c, "blocking_collectives");
        raw->blocking = blocking != NULL && strcmp(blocking, "true") == 0;
        raw->header_line = 1;
        JsonNode *devices = json_object_get_member(c, "devices");
        JsonArray *list =
            devices != NULL && JSON_NODE_HOLDS_ARRAY(devices) ? json_node_get_array(devices) : NULL;
        for (guint i = 0; list != NULL && i < json_array_get_length(list); i++) {
            JsonNode *d = json_array_get_element(list, i);
            if (!JSON_NODE_HOLDS_OBJECT(d))
                continue;
            JsonObject *o = json_node_get_object(d);
            ok = true;
            double rank = member_number(o, "rank", &ok);
            const char *host = member_string(o, "hostname");
            const char *info = member_string(o, "device_info");
            if (ok && rank >= 0 && info != NULL)
                judge_raw_add_rank(raw, (uint32_t)rank, host != NULL ? host : "", info, 1);
        }
    }
    JsonArray *list = json_node_get_array(results);
    for (guint i = 0; i < json_array_get_length(list); i++) {
        JsonNode *n = json_array_get_element(list, i);
        JsonObject *o = JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
        JudgeLogRow row = {.line = 1, .root = -1};
        ok = o != NULL;
        double size = ok ? member_number(o, "size", &ok) : NAN;
        const char *type = ok ? member_string(o, "type") : NULL;
        const char *redop = ok ? member_string(o, "redop") : NULL;
        const char *root_text = ok ? member_string(o, "root") : NULL;
        if (ok && type != NULL && size >= 0 && size == floor(size)) {
            row.bytes = (uint64_t)size;
            g_strlcpy(row.type, type, sizeof row.type);
            g_strlcpy(row.redop, redop != NULL ? redop : "", sizeof row.redop);
            row.root = root_text != NULL ? g_ascii_strtoll(root_text, NULL, 10) : -1;
            read_group(o, "out_of_place", &row, 0, &ok);
            read_group(o, "in_place", &row, 1, &ok);
        } else
            ok = false;
        if (!ok || (!row.has[0] && !row.has[1])) {
            judge_problem(p, 1,
                          "\"results\"[%u]: expected \"size\", \"type\" and an \"out_of_place\" "
                          "or \"in_place\" group of \"time\", \"alg_bw\" and \"bus_bw\"",
                          i);
            continue;
        }
        g_array_append_val(raw->rows, row);
    }
    judge_resolve(p, raw);
    judge_raw_free(raw);
    return true;
}
