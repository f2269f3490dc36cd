/* The calendar queue: time buckets over a window, an overflow list beyond.
 *
 * push: an entry inside the window is appended to its bucket (or, if the
 * clock has reached that bucket, inserted in order); one after the window
 * is appended to the overflow list. top: the current bucket was sorted when
 * the clock reached it; when it runs dry the next non-empty bucket is
 * sorted, and when the window runs dry it is rebuilt from the overflow list,
 * with a bucket width that puts about ENTRIES_PER_BUCKET entries in each.
 * Correctness never depends on the width: only speed does. Sources: Brown,
 * "Calendar queues", CACM 1988; Tang, Goh and Thng, "Ladder queue", ACM
 * TOMACS 2005.
 */
#include "core/core-queue.h"

#include <glib.h>
#include <string.h>

/* Average bucket occupancy a rebuild aims for: small enough that sorting a
 * bucket is a few compares per entry, large enough that few buckets are
 * empty. */
#define ENTRIES_PER_BUCKET 8
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

void
sim_queue_clear(SimQueue *q)
{
    for (uint32_t i = 0; i < q->buckets_capacity; i++)
        g_free(q->buckets[i].entries);
    g_free(q->buckets);
    g_free(q->overflow.entries);
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

/* Inserts into the current bucket, keeping its unread part sorted. */
void
sim_queue_insert_current(SimQueue *q, const SimQueueEntry *entry)
{
    SimQueueBucket *b = &q->buckets[q->cur];
    if (b->n_entries == b->capacity)
        sim_queue_bucket_grow(b);
    uint32_t lo = q->cur_read, hi = b->n_entries;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (sim_queue_entry_before(&b->entries[mid], entry))
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove(&b->entries[lo + 1], &b->entries[lo], (b->n_entries - lo) * sizeof(SimQueueEntry));
    b->entries[lo] = *entry;
    b->n_entries++;
}

static unsigned
bits_for(uint64_t x)
{
    return x == 0 ? 0 : 64 - (unsigned)__builtin_clzll(x);
}

/* The bucket width, as a power of two, for a window starting at min_ps:
 * about ENTRIES_PER_BUCKET entries a bucket where the entries are densest,
 * at the front. The density there is estimated from an evenly spaced sample
 * of the overflow list: the SAMPLE_RANK-th smallest of n_samples samples
 * stands for the (SAMPLE_RANK * n / n_samples)-th smallest entry. */
#define N_SAMPLES 64
#define SAMPLE_RANK 4

static unsigned
window_shift(const SimQueueBucket *of, uint64_t min_ps)
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
    unsigned __int128 span = (unsigned __int128)smallest[rank] * n_samples * ENTRIES_PER_BUCKET;
    uint64_t n_spanned = (uint64_t)rank * n + 1;
    unsigned __int128 width = span / n_spanned;
    return bits_for(width > UINT64_MAX ? UINT64_MAX : (uint64_t)width);
}

/* Makes a new window out of the overflow list: as many buckets as needed to
 * reach the latest entry, but no more than about 2n / ENTRIES_PER_BUCKET;
 * entries past the window stay in the overflow list for the next one. */
static void
rebuild(SimQueue *q)
{
    SimQueueBucket *of = &q->overflow;
    g_assert(of->n_entries > 0);
    uint64_t min_ps = UINT64_MAX, max_ps = 0;
    for (uint32_t i = 0; i < of->n_entries; i++) {
        uint64_t t = of->entries[i].time_ps;
        min_ps = t < min_ps ? t : min_ps;
        max_ps = t > max_ps ? t : max_ps;
    }
    q->shift = window_shift(of, min_ps);
    uint64_t n_buckets = ((max_ps - min_ps) >> q->shift) + 1;
    uint64_t max_buckets = 2 * (uint64_t)of->n_entries / ENTRIES_PER_BUCKET + 1;
    n_buckets = n_buckets < max_buckets ? n_buckets : max_buckets;
    if (n_buckets > q->buckets_capacity) {
        q->buckets = g_renew(SimQueueBucket, q->buckets, n_buckets);
        memset(&q->buckets[q->buckets_capacity], 0,
               (n_buckets - q->buckets_capacity) * sizeof(SimQueueBucket));
        q->buckets_capacity = (uint32_t)n_buckets;
    }
    q->n_buckets = (uint32_t)n_buckets;
    q->base_ps = min_ps;
    unsigned __int128 last =
        (unsigned __int128)min_ps + ((unsigned __int128)n_buckets << q->shift) - 1;
    q->last_ps = last > UINT64_MAX ? UINT64_MAX : (uint64_t)last;

    /* Distribute, compacting what stays in the overflow list in place. */
    uint32_t n_kept = 0;
    for (uint32_t i = 0; i < of->n_entries; i++) {
        const SimQueueEntry *e = &of->entries[i];
        if (e->time_ps > q->last_ps)
            of->entries[n_kept++] = *e;
        else
            bucket_append(&q->buckets[(e->time_ps - min_ps) >> q->shift], e);
    }
    of->n_entries = n_kept;
    q->cur = 0;
    q->cur_read = 0;
    q->n_rebuilds++;
}

/* Moves on from a drained current bucket to the next non-empty one. */
void
sim_queue_advance(SimQueue *q)
{
    for (;;) {
        if (q->n_buckets > 0)
            q->buckets[q->cur].n_entries = 0;
        q->cur_read = 0;
        if (q->n_buckets == 0 || ++q->cur == q->n_buckets)
            rebuild(q);
        SimQueueBucket *b = &q->buckets[q->cur];
        if (b->n_entries > 0) {
            sort_entries(b->entries, b->n_entries);
            return;
        }
    }
}

bool
sim_queue_is_valid(const SimQueue *q)
{
    size_t n = q->overflow.n_entries;
    for (uint32_t i = 0; i < q->overflow.n_entries; i++)
        if (q->n_buckets > 0 && q->overflow.entries[i].time_ps <= q->last_ps)
            return false;
    for (uint32_t b = 0; b < q->n_buckets; b++) {
        const SimQueueBucket *bucket = &q->buckets[b];
        uint32_t first = b == q->cur ? q->cur_read : 0;
        if (b < q->cur && bucket->n_entries != 0)
            return false;
        for (uint32_t i = first; i < bucket->n_entries; i++) {
            const SimQueueEntry *e = &bucket->entries[i];
            uint64_t idx = e->time_ps >= q->base_ps ? (e->time_ps - q->base_ps) >> q->shift : 0;
            if (b == q->cur ? idx > b : idx != b)
                return false;
            if (b == q->cur && i > first && !sim_queue_entry_before(&bucket->entries[i - 1], e))
                return false;
        }
        n += bucket->n_entries - first;
    }
    return n == q->n_entries;
}
