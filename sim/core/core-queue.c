/* SPDX-License-Identifier: Apache-2.0 */
/* The ladder queue: an overflow list, a coarse rung, a fine rung.
 *
 * push appends to the overflow list (past the window), to a coarse bucket
 * (inside the window, after the current coarse bucket), to a fine bucket,
 * or, if the clock has reached that fine bucket, inserts in order. When the
 * current fine bucket runs dry the next non-empty one is sorted; when the
 * fine rung runs dry the next non-empty coarse bucket is split into a new
 * fine rung; when the coarse rung runs dry it is rebuilt from the overflow
 * list. Bucket widths are powers of two, chosen so a coarse bucket holds
 * about COARSE_ENTRIES entries and a fine one about FINE_ENTRIES: only speed
 * depends on them, never the order. Sources: Brown, "Calendar queues", CACM
 * 1988; Tang, Goh and Thng, "Ladder queue", ACM TOMACS 2005.
 */
#include "core/core-queue.h"

#include <glib.h>
#include <string.h>

/* Entries a fine bucket aims for: sorting it is a few compares an entry. */
#define FINE_ENTRIES 8
/* Entries a coarse bucket aims for: few enough coarse buckets that their
 * tails stay in cache while pushes land in them. */
#define COARSE_ENTRIES 512
/* A bucket emptied with room for more entries than this gives its memory
 * back: a burst of events at one time (every send of an alltoall at its
 * start) would otherwise stay allocated in every bucket it passed through. */
#define BUCKET_KEEP_MAX 4096
/* Buckets shorter than this are sorted by insertion. */
#define INSERTION_SORT_MAX 16

#define SWAP(a, b)                                                                                 \
    do {                                                                                           \
        SimQueueEntry swap_tmp = (a);                                                              \
        (a) = (b);                                                                                 \
        (b) = swap_tmp;                                                                            \
    } while (0)

void
sim_queue_init(SimQueue *q)
{
    *q = (SimQueue){0};
}

static void
rung_clear(SimQueueRung *r)
{
    for (uint32_t i = 0; i < r->capacity; i++)
        g_free(r->buckets[i].entries);
    g_free(r->buckets);
}

void
sim_queue_clear(SimQueue *q)
{
    rung_clear(&q->coarse);
    rung_clear(&q->fine);
    g_free(q->overflow.entries);
    g_free(q->side.entries);
    sim_queue_init(q);
}

void
sim_queue_bucket_grow(SimQueueBucket *b)
{
    b->capacity = b->capacity ? 2 * b->capacity : 8;
    b->entries = g_renew(SimQueueEntry, b->entries, b->capacity);
}

static inline void
bucket_append(SimQueueBucket *b, const SimQueueEntry *entry)
{
    if (b->n_entries == b->capacity)
        sim_queue_bucket_grow(b);
    b->entries[b->n_entries++] = *entry;
}

/* Empties b, giving its memory back past BUCKET_KEEP_MAX entries. */
static inline void
bucket_empty(SimQueueBucket *b)
{
    b->n_entries = 0;
    if (b->capacity > BUCKET_KEEP_MAX) {
        g_free(b->entries);
        b->entries = NULL;
        b->capacity = 0;
    }
}

static void
insertion_sort(SimQueueEntry *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        SimQueueEntry e = a[i];
        size_t j = i;
        for (; j > 0 && sim_queue_entry_before(&e, &a[j - 1]); j--)
            a[j] = a[j - 1];
        a[j] = e;
    }
}

/* Quicksort with a median-of-three pivot, insertion sort for short runs.
 * Keys are unique, so no run is all equal. */
static void
sort_entries(SimQueueEntry *a, size_t n)
{
    while (n > INSERTION_SORT_MAX) {
        size_t mid = n / 2;
        if (sim_queue_entry_before(&a[mid], &a[0]))
            SWAP(a[mid], a[0]);
        if (sim_queue_entry_before(&a[n - 1], &a[0]))
            SWAP(a[n - 1], a[0]);
        if (sim_queue_entry_before(&a[n - 1], &a[mid]))
            SWAP(a[n - 1], a[mid]);
        SimQueueEntry pivot = a[mid];
        size_t i = 0, j = n - 1;
        for (;;) {
            while (sim_queue_entry_before(&a[i], &pivot))
                i++;
            while (sim_queue_entry_before(&pivot, &a[j]))
                j--;
            if (i >= j)
                break;
            SWAP(a[i], a[j]);
            i++;
            j--;
        }
        /* Recurse into the smaller side, loop on the larger. */
        size_t left = j + 1;
        if (left < n - left) {
            sort_entries(a, left);
            a += left;
            n -= left;
        } else {
            sort_entries(a + left, n - left);
            n = left;
        }
    }
    insertion_sort(a, n);
}

/* Out-of-order entries of the current bucket go to a binary min-heap
 * beside it once inserting in place would move more than this many entries:
 * many events at a few distinct times (a thousand flows landing at once)
 * would otherwise make insertion quadratic. */
#define INSERT_MOVE_MAX 32

static void
side_push(SimQueueBucket *h, const SimQueueEntry *entry)
{
    if (h->n_entries == h->capacity)
        sim_queue_bucket_grow(h);
    uint32_t i = h->n_entries++;
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (!sim_queue_entry_before(entry, &h->entries[parent]))
            break;
        h->entries[i] = h->entries[parent];
        i = parent;
    }
    h->entries[i] = *entry;
}

static void
side_pop(SimQueueBucket *h)
{
    SimQueueEntry last = h->entries[--h->n_entries];
    uint32_t n = h->n_entries, i = 0;
    for (;;) {
        uint32_t child = 2 * i + 1;
        if (child >= n)
            break;
        if (child + 1 < n && sim_queue_entry_before(&h->entries[child + 1], &h->entries[child]))
            child++;
        if (!sim_queue_entry_before(&h->entries[child], &last))
            break;
        h->entries[i] = h->entries[child];
        i = child;
    }
    if (n > 0)
        h->entries[i] = last;
}

/* Inserts into the current fine bucket, keeping its unread part sorted, or
 * into the side heap when that would move many entries. */
void
sim_queue_insert_current(SimQueue *q, uint64_t time_ps, uint64_t order, uint32_t slot)
{
    const SimQueueEntry entry = {time_ps, order, slot};
    SimQueueBucket *b = &q->fine.buckets[q->fine.cur];
    uint32_t lo = q->cur_read, hi = b->n_entries;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (sim_queue_entry_before(&b->entries[mid], &entry))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (b->n_entries - lo > INSERT_MOVE_MAX) {
        side_push(&q->side, &entry);
        return;
    }
    if (b->n_entries == b->capacity)
        sim_queue_bucket_grow(b);
    memmove(&b->entries[lo + 1], &b->entries[lo], (b->n_entries - lo) * sizeof(SimQueueEntry));
    b->entries[lo] = entry;
    b->n_entries++;
}

/* The smaller of the current bucket's next entry and the side heap's top. */
const SimQueueEntry *
sim_queue_top_side(SimQueue *q)
{
    const SimQueueBucket *b = &q->fine.buckets[q->fine.cur];
    const SimQueueEntry *side = &q->side.entries[0];
    q->top_from_side =
        q->cur_read == b->n_entries || sim_queue_entry_before(side, &b->entries[q->cur_read]);
    return q->top_from_side ? side : &b->entries[q->cur_read];
}

void
sim_queue_pop_side(SimQueue *q)
{
    sim_queue_top_side(q);
    if (q->top_from_side) {
        q->taken_ps = q->side.entries[0].time_ps;
        side_pop(&q->side);
    } else {
        q->taken_ps = q->fine.buckets[q->fine.cur].entries[q->cur_read++].time_ps;
    }
    q->n_entries--;
}

static unsigned
bits_for(uint64_t x)
{
    return x == 0 ? 0 : 64 - (unsigned)__builtin_clzll(x);
}

/* Sets rung r to n_buckets buckets of 2^shift ps from base_ps. */
static void
rung_reset(SimQueueRung *r, uint64_t base_ps, unsigned shift, uint64_t n_buckets)
{
    g_assert(n_buckets <= UINT32_MAX);
    if (n_buckets > r->capacity) {
        r->buckets = g_renew(SimQueueBucket, r->buckets, n_buckets);
        memset(&r->buckets[r->capacity], 0, (n_buckets - r->capacity) * sizeof(SimQueueBucket));
        r->capacity = (uint32_t)n_buckets;
    }
    r->n_buckets = (uint32_t)n_buckets;
    r->cur = 0;
    r->shift = shift;
    r->base_ps = base_ps;
    unsigned __int128 last =
        (unsigned __int128)base_ps + ((unsigned __int128)n_buckets << shift) - 1;
    r->last_ps = last > UINT64_MAX ? UINT64_MAX : (uint64_t)last;
}

/* The coarse bucket width, as a power of two, for a window starting at
 * min_ps: about COARSE_ENTRIES entries a bucket where the entries are
 * densest, at the front. The density there is estimated from an evenly
 * spaced sample of the overflow list: the SAMPLE_RANK-th smallest of
 * n_samples samples stands for the (SAMPLE_RANK * n / n_samples)-th
 * smallest entry. */
#define N_SAMPLES 64
#define SAMPLE_RANK 4

static unsigned
coarse_shift(const SimQueueBucket *of, uint64_t min_ps)
{
    uint32_t n = of->n_entries;
    uint32_t n_samples = n < N_SAMPLES ? n : N_SAMPLES;
    uint32_t rank = n_samples > SAMPLE_RANK ? SAMPLE_RANK : n_samples - 1;
    /* The rank + 1 smallest samples, kept sorted by insertion. */
    uint64_t smallest[SAMPLE_RANK + 1];
    uint32_t n_kept = 0;
    for (uint32_t i = 0; i < n_samples; i++) {
        uint64_t x = of->entries[(uint64_t)i * n / n_samples].time_ps - min_ps;
        if (n_kept == rank + 1 && x >= smallest[rank])
            continue;
        uint32_t j = n_kept < rank + 1 ? n_kept++ : rank;
        for (; j > 0 && smallest[j - 1] > x; j--)
            smallest[j] = smallest[j - 1];
        smallest[j] = x;
    }
    /* smallest[rank] - 0 spans about rank * n / n_samples entries. */
    unsigned __int128 span = (unsigned __int128)smallest[rank] * n_samples * COARSE_ENTRIES;
    uint64_t n_spanned = (uint64_t)rank * n + 1;
    unsigned __int128 width = span / n_spanned;
    /* At most 2^63 ps a bucket: a shift of 64 would be undefined (x86
     * shifts by 0 then, and a far entry indexes past the rung), and two
     * buckets of 2^63 ps already cover the whole clock. */
    unsigned shift = bits_for(width > UINT64_MAX ? UINT64_MAX : (uint64_t)width);
    return shift < 63 ? shift : 63;
}

/* Builds the coarse rung from the overflow list: as many buckets as needed
 * to reach the latest entry, but no more than about 2n / COARSE_ENTRIES;
 * entries past it stay in the overflow list for the next one. */
static void
rebuild_coarse(SimQueue *q)
{
    SimQueueBucket *of = &q->overflow;
    g_assert(of->n_entries > 0);
    uint64_t min_ps = UINT64_MAX, max_ps = 0;
    for (uint32_t i = 0; i < of->n_entries; i++) {
        uint64_t t = of->entries[i].time_ps;
        min_ps = t < min_ps ? t : min_ps;
        max_ps = t > max_ps ? t : max_ps;
    }
    unsigned shift = coarse_shift(of, min_ps);
    uint64_t n_buckets = ((max_ps - min_ps) >> shift) + 1;
    uint64_t max_buckets = 2 * (uint64_t)of->n_entries / COARSE_ENTRIES + 1;
    rung_reset(&q->coarse, min_ps, shift, MIN(n_buckets, max_buckets));

    /* Distribute, compacting what stays in the overflow list in place. */
    uint32_t n_kept = 0;
    for (uint32_t i = 0; i < of->n_entries; i++) {
        const SimQueueEntry *e = &of->entries[i];
        if (e->time_ps > q->coarse.last_ps)
            of->entries[n_kept++] = *e;
        else
            bucket_append(&q->coarse.buckets[(e->time_ps - min_ps) >> shift], e);
    }
    of->n_entries = n_kept;
    q->n_rebuilds++;
}

/* Splits coarse bucket coarse.cur into the fine rung, about FINE_ENTRIES
 * entries a bucket, and empties it. */
static void
spawn_fine(SimQueue *q)
{
    SimQueueRung *coarse = &q->coarse;
    SimQueueBucket *src = &coarse->buckets[coarse->cur];
    unsigned split = bits_for(src->n_entries / FINE_ENTRIES);
    unsigned shift = coarse->shift > split ? coarse->shift - split : 0;
    uint64_t start_ps = coarse->base_ps + ((uint64_t)coarse->cur << coarse->shift);
    rung_reset(&q->fine, start_ps, shift, UINT64_C(1) << (coarse->shift - shift));
    for (uint32_t i = 0; i < src->n_entries; i++) {
        const SimQueueEntry *e = &src->entries[i];
        bucket_append(&q->fine.buckets[(e->time_ps - start_ps) >> shift], e);
    }
    bucket_empty(src);
}

/* Moves the coarse rung on to its next non-empty bucket (rebuilding it from
 * the overflow list when it runs dry) and splits that bucket. */
static void
next_coarse(SimQueue *q)
{
    SimQueueRung *coarse = &q->coarse;
    for (;;) {
        if (coarse->n_buckets == 0 || ++coarse->cur == coarse->n_buckets)
            rebuild_coarse(q);
        if (coarse->buckets[coarse->cur].n_entries > 0) {
            spawn_fine(q);
            return;
        }
    }
}

void
sim_queue_advance(SimQueue *q)
{
    SimQueueRung *fine = &q->fine;
    for (;;) {
        if (fine->n_buckets > 0)
            bucket_empty(&fine->buckets[fine->cur++]);
        q->cur_read = 0;
        if (fine->cur >= fine->n_buckets)
            next_coarse(q);
        SimQueueBucket *b = &fine->buckets[fine->cur];
        if (b->n_entries > 0) {
            sort_entries(b->entries, b->n_entries);
            return;
        }
    }
}

/* Checks one rung: buckets before n_empty hold nothing, buckets from
 * first_checked on hold only entries of their own time range. */
static bool
rung_is_valid(const SimQueueRung *r, uint32_t n_empty, uint32_t first_checked, size_t *n)
{
    for (uint32_t b = 0; b < r->n_buckets; b++) {
        const SimQueueBucket *bucket = &r->buckets[b];
        if (b < n_empty && bucket->n_entries != 0)
            return false;
        if (b < first_checked)
            continue;
        for (uint32_t i = 0; i < bucket->n_entries; i++)
            if (sim_queue_rung_index(r, bucket->entries[i].time_ps) != b)
                return false;
        *n += bucket->n_entries;
    }
    return true;
}

bool
sim_queue_is_valid(const SimQueue *q)
{
    size_t n = q->overflow.n_entries;
    for (uint32_t i = 0; i < q->overflow.n_entries; i++)
        if (q->coarse.n_buckets > 0 && q->overflow.entries[i].time_ps <= q->coarse.last_ps)
            return false;
    if (q->coarse.n_buckets == 0)
        return n == q->n_entries;
    if (!rung_is_valid(&q->coarse, q->coarse.cur + 1, q->coarse.cur + 1, &n) ||
        !rung_is_valid(&q->fine, q->fine.cur, q->fine.cur + 1, &n))
        return false;
    /* The current fine bucket: sorted from cur_read on, nothing after its end. */
    const SimQueueBucket *cur = &q->fine.buckets[q->fine.cur];
    for (uint32_t i = q->cur_read; i < cur->n_entries; i++) {
        if (sim_queue_rung_index(&q->fine, cur->entries[i].time_ps) > q->fine.cur)
            return false;
        if (i > q->cur_read && !sim_queue_entry_before(&cur->entries[i - 1], &cur->entries[i]))
            return false;
    }
    n += cur->n_entries - q->cur_read;
    for (uint32_t i = 0; i < q->side.n_entries; i++) {
        const SimQueueEntry *e = &q->side.entries[i];
        if (sim_queue_rung_index(&q->fine, e->time_ps) > q->fine.cur ||
            (i > 0 && sim_queue_entry_before(e, &q->side.entries[(i - 1) / 2])))
            return false;
    }
    n += q->side.n_entries;
    return n == q->n_entries;
}
