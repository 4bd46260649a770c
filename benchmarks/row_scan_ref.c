/* A plain row-scan engine for perfect edge-matching boards, in C: the same-machine reference of
 * `python -m benchmarks.bench_exact_edge speed` (issue 56). Never needed by the product: the benchmark
 * builds it with `cc -O3` into a temporary folder when a compiler is present.
 *
 * Plain: one loop, one cursor per depth, candidate lists keyed by the colours of the cell's known sides
 * (left and top on a row scan), a used test per entry; no generated code, no bit sets, no tricks. It
 * reads the board's lists from the file named by its first argument (written by bench_exact_edge from
 * the project's `Board`, order rows), so that its tree is the row-scan order's: the same candidates in
 * the same order, identical pieces placed in list order. A placement is a piece put on the board (the
 * community's count); a node is a placement or a dead end (a turn of the loop), as the project counts.
 *
 * Input (whitespace-separated integers): f pieces entries lists
 *   per depth: cell base key_at[4] key_weight[4]      (the key: base + sum colour[key_at] * weight)
 *   per piece: next_twin blocked                      (blocked: used, or a twin whose earlier twin is free)
 *   per entry: piece colour[4]                        (piece == pieces: a list's sentinel)
 *   per list key: start
 *   cells, then per cell four colours shown           (pre-placed cells' colours; -1 elsewhere)
 * Second argument: the node cap. Prints "nodes placements boards cpu_seconds".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int64_t next_int(FILE *in) {
    long long x;
    if (fscanf(in, "%lld", &x) != 1) {
        fprintf(stderr, "row_scan_ref: short input\n");
        exit(2);
    }
    return (int64_t)x;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: row_scan_ref TABLES MAX_NODES\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        perror(argv[1]);
        return 2;
    }
    int64_t max_nodes = strtoll(argv[2], NULL, 10);
    int f = (int)next_int(in), pieces = (int)next_int(in), entries = (int)next_int(in);
    int lists = (int)next_int(in);
    int *cell = malloc(sizeof(int) * (f + 1)), *base = malloc(sizeof(int) * (f + 1));
    int *key_at = malloc(sizeof(int) * 4 * (f + 1)), *weight = malloc(sizeof(int) * 4 * (f + 1));
    for (int d = 0; d < f; d++) {
        cell[d] = (int)next_int(in);
        base[d] = (int)next_int(in);
        for (int j = 0; j < 4; j++) key_at[4 * d + j] = (int)next_int(in);
        for (int j = 0; j < 4; j++) weight[4 * d + j] = (int)next_int(in);
    }
    int *twin = malloc(sizeof(int) * (pieces + 1));
    unsigned char *blocked = calloc(pieces + 1, 1);
    for (int p = 0; p < pieces; p++) {
        twin[p] = (int)next_int(in);
        blocked[p] = (unsigned char)next_int(in);
    }
    int *piece = malloc(sizeof(int) * entries);
    int16_t *shows = malloc(sizeof(int16_t) * 4 * entries);
    for (int i = 0; i < entries; i++) {
        piece[i] = (int)next_int(in);
        for (int s = 0; s < 4; s++) shows[4 * i + s] = (int16_t)next_int(in);
    }
    int *starts = malloc(sizeof(int) * lists);
    for (int k = 0; k < lists; k++) starts[k] = (int)next_int(in);
    int cells = (int)next_int(in);
    int16_t *shown = malloc(sizeof(int16_t) * 4 * cells);
    for (int x = 0; x < 4 * cells; x++) shown[x] = (int16_t)next_int(in);
    fclose(in);

    int *at = malloc(sizeof(int) * (f + 1)), *chosen = malloc(sizeof(int) * (f + 1));
    struct timespec t0, t1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    int64_t nodes = 0, placements = 0, boards = 0;
    int d = 0, fresh = 1;
    while (f > 0) {
        if (d == f) { /* a whole board: back up without a node */
            boards++;
            d--;
            int p = piece[chosen[d]];
            blocked[p] = 0;
            if (twin[p] >= 0) blocked[twin[p]] = 1;
            fresh = 0;
            continue;
        }
        int i;
        if (fresh) {
            int key = base[d];
            for (int j = 0; j < 4; j++) key += shown[key_at[4 * d + j]] * weight[4 * d + j];
            i = starts[key];
        } else {
            i = at[d];
        }
        int p;
        for (;; i++) { /* the list ends in a sentinel, never blocked */
            p = piece[i];
            if (!blocked[p]) break;
        }
        nodes++;
        if (p != pieces) { /* place it */
            blocked[p] = 1;
            if (twin[p] >= 0) blocked[twin[p]] = 0;
            chosen[d] = i;
            at[d] = i + 1;
            for (int s = 0; s < 4; s++) shown[4 * cell[d] + s] = shows[4 * i + s];
            placements++;
            d++;
            fresh = 1;
        } else { /* a dead end: back up */
            if (d == 0) break;
            d--;
            int q = piece[chosen[d]];
            blocked[q] = 0;
            if (twin[q] >= 0) blocked[twin[q]] = 1;
            fresh = 0;
        }
        if (nodes > max_nodes) break;
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("%lld %lld %lld %.6f\n", (long long)nodes, (long long)placements, (long long)boards, seconds);
    return 0;
}
