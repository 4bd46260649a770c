"""Baseline: seed 001's pseudo-Eternity II code, copied plainly (pure Python lists), bugs and all.

Changes from the article, none of which touch what the solver computes:
  * the globals `n` and `N` the seed's functions read are passed explicitly;
  * `random` is a `random.Random` passed in, so a run is pinned by its seed;
  * the progress print, the drawing (PIL) and the notebook display are left out.
Used by benchmarks/bench_edge_greedy.py (speed baseline) and tests/puzzles/edge_matching/test_edge_greedy.py
(the project's `seed_faithful` greedy must return exactly what `solve` returns).
"""

import random


def generate_puzzle(n, color, rnd: random.Random):
    N = n**2
    field = [[0, 0, 0, 0] for i in range(N)]
    palette = [i + 1 for i in range(color)]
    palette = rnd.sample(palette, len(palette))
    count = 0
    for i in range(n - 1):
        for j in range(n):
            field[n * i + j][3] = palette[count]
            field[n * i + j + n][1] = palette[count]
            if count == color - 1:
                count = 0
                palette = [i + 1 for i in range(color)]
                palette = rnd.sample(palette, len(palette))
            else:
                count += 1
    for i in range(n):
        for j in range(n - 1):
            field[n * i + j][2] = palette[count]
            field[n * i + j + 1][0] = palette[count]
            if count == color - 1:
                count = 0
                palette = [i + 1 for i in range(color)]
                palette = rnd.sample(palette, len(palette))
            else:
                count += 1
    return field


def fill_corner(X, Y, Remains):
    N = len(X)
    n = int(pow(N, 0.5))
    X_index = list(range(N))
    corner_0_index = [i for i in X_index if (X[i][0] == 0 and X[i][1] == 0)]
    corner_0 = X[corner_0_index[0]]
    corner_1_index = [i for i in X_index if (X[i][1] == 0 and X[i][2] == 0)]
    corner_1 = X[corner_1_index[0]]
    corner_2_index = [i for i in X_index if (X[i][0] == 0 and X[i][3] == 0)]
    corner_2 = X[corner_2_index[0]]
    corner_3_index = [i for i in X_index if (X[i][2] == 0 and X[i][3] == 0)]
    corner_3 = X[corner_3_index[0]]
    corner = [corner_0, corner_1, corner_2, corner_3]
    for i in range(4):
        Remains.remove(corner[i])
    Y[0] = corner_0
    Y[n - 1] = corner_1
    Y[N - n] = corner_2
    Y[N - 1] = corner_3
    return Y, Remains


def judge(n, index):
    N = n**2
    corner0 = [0]
    corner1 = [n - 1]
    corner2 = [N - n]
    corner3 = [N - 1]
    left = [n + i * n for i in range(n - 2)]
    above = [1 + i for i in range(n - 2)]
    right = [2 * n - 1 + i * n for i in range(n - 2)]
    below = [N - n + 1 + i for i in range(n - 2)]
    lookup = [corner0, corner1, corner2, corner3, left, above, right, below]
    element = [flatten for inner in lookup for flatten in inner]
    if index < 0 or index > N:
        return None
    elif index in element:
        for i in range(len(lookup)):
            if index in lookup[i]:
                return i
    else:
        return 8


def get_around_pattern_nm(n, index, piece, estimate):
    if judge(n, index) == 4:
        if type(estimate[index - n]) == int:
            estimate[index - n] = [-1, -1, -1, -1]
        if type(estimate[index + 1]) == int:
            estimate[index + 1] = [-1, -1, -1, -1]
        if type(estimate[index + n]) == int:
            estimate[index + n] = [-1, -1, -1, -1]
        num = set(enumerate(piece)) & set(
            enumerate([0, estimate[index - n][3], estimate[index + 1][0], estimate[index + n][1]])
        )
    elif judge(n, index) == 5:
        if type(estimate[index - 1]) == int:
            estimate[index - 1] = [-1, -1, -1, -1]
        if type(estimate[index + 1]) == int:
            estimate[index + 1] = [-1, -1, -1, -1]
        if type(estimate[index + n]) == int:
            estimate[index + n] = [-1, -1, -1, -1]
        num = set(enumerate(piece)) & set(
            enumerate([estimate[index - 1][2], 0, estimate[index + 1][0], estimate[index + n][1]])
        )
    elif judge(n, index) == 6:
        if type(estimate[index - n]) == int:
            estimate[index - n] = [-1, -1, -1, -1]
        if type(estimate[index - 1]) == int:
            estimate[index - 1] = [-1, -1, -1, -1]
        if type(estimate[index + n]) == int:
            estimate[index + n] = [-1, -1, -1, -1]
        num = set(enumerate(piece)) & set(
            enumerate([estimate[index - 1][2], estimate[index - n][3], 0, estimate[index + n][1]])
        )
    elif judge(n, index) == 7:
        if type(estimate[index - n]) == int:
            estimate[index - n] = [-1, -1, -1, -1]
        if type(estimate[index - 1]) == int:
            estimate[index - 1] = [-1, -1, -1, -1]
        if type(estimate[index + 1]) == int:
            estimate[index + 1] = [-1, -1, -1, -1]
        num = set(enumerate(piece)) & set(
            enumerate([estimate[index - 1][2], estimate[index - n][3], estimate[index + 1][0], 0])
        )
    elif judge(n, index) == 8:
        if type(estimate[index - n]) == int:
            estimate[index - n] = [-1, -1, -1, -1]
        if type(estimate[index - 1]) == int:
            estimate[index - 1] = [-1, -1, -1, -1]
        if type(estimate[index + 1]) == int:
            estimate[index + 1] = [-1, -1, -1, -1]
        if type(estimate[index + n]) == int:
            estimate[index + n] = [-1, -1, -1, -1]
        num = set(enumerate(piece)) & set(
            enumerate(
                [
                    estimate[index - 1][2],
                    estimate[index - n][3],
                    estimate[index + n][0],
                    estimate[index + n][1],
                ]
            )
        )
    return num


def calc_remain_index(Y):
    index = []
    for i in range(len(Y) - 1):
        if type(Y[i]) == int or Y[i] == [-1, -1, -1, -1]:
            index.append(i)
    return index


def puzzle_making(answer, rnd: random.Random):
    N = len(answer)
    X = list(answer)
    center_index = (N - 1) // 2
    center = answer[center_index]
    X.pop(center_index)
    X = rnd.sample(X, len(X))
    X.insert(center_index, center)
    return X


def data_making(X):
    N = len(X)
    center_index = (N - 1) // 2
    center = X[center_index]
    Y = list(range(N))
    Y[center_index] = center
    Remains = list(X)
    Remains.remove(center)
    return Y, Remains


def check(Y):
    N = len(Y)
    n = int(pow(N, 0.5))
    count = 0
    # vertex
    count += Y[0][0] == 0
    count += Y[0][1] == 0
    count += Y[0][2] == Y[1][0]
    count += Y[0][3] == Y[n][1]
    count += Y[n - 1][0] == Y[n - 2][2]
    count += Y[n - 1][1] == 0
    count += Y[n - 1][2] == 0
    count += Y[n - 1][3] == Y[n - 1 + n][1]
    count += Y[N - n][0] == 0
    count += Y[N - n][1] == Y[N - n - n][3]
    count += Y[N - n][2] == Y[N - n + 1][0]
    count += Y[N - n][3] == 0
    count += Y[N - 1][0] == Y[N - 2][2]
    count += Y[N - 1][1] == Y[N - 1 - n][3]
    count += Y[N - 1][2] == 0
    count += Y[N - 1][3] == 0
    # edge
    for i in range(n - 2):
        count += Y[i + 1][0] == Y[i][2]
        count += Y[i + 1][1] == 0
        count += Y[i + 1][2] == Y[i + 2][0]
        count += Y[i + 1][3] == Y[i + 1 + n][1]
        count += Y[n + i * n][0] == 0
        count += Y[n + i * n][1] == Y[i * n][3]
        count += Y[n + i * n][2] == Y[n + i * n + 1][0]
        count += Y[n + i * n][3] == Y[n + i * n + n][1]
        count += Y[n + n - 1 + n * i][0] == Y[n + n - 1 + n * i - 1][2]
        count += Y[n + n - 1 + n * i][1] == Y[n - 1 + n * i][3]
        count += Y[n + n - 1 + n * i][2] == 0
        count += Y[n + n - 1 + n * i][3] == Y[n + n - 1 + n * i + n][1]
        count += Y[N - n + 1 + i][0] == Y[N - n + i][2]
        count += Y[N - n + 1 + i][1] == Y[N - n + 1 + i - n][3]
        count += Y[N - n + 1 + i][2] == Y[N - n + 1 + i + 1][0]
        count += Y[N - n + 1 + i][3] == 0
    # inner
    for i in range(n - 2):
        for j in range(n - 2):
            count += Y[i + (j + 1) * n + 1][0] == Y[i + (j + 1) * n][2]
            count += Y[i + (j + 1) * n + 1][1] == Y[i + (j + 1) * n + 1 - n][3]
            count += Y[i + (j + 1) * n + 1][2] == Y[i + (j + 1) * n + 1 + 1][0]
            count += Y[i + (j + 1) * n + 1][3] == Y[i + (j + 1) * n + 1 + n][1]
    return int(count)


def index_sorting(n, estimate, remains):
    score = []
    piece = []
    for index in calc_remain_index(estimate):
        number = [0 for i in range(len(remains))]
        for i in range(len(remains)):
            number[i] = len(get_around_pattern_nm(n, index, remains[i], estimate))
        max_index = number.index(max(number))
        if (judge(n, index) == 8) and (0 in remains[max_index]):
            while 0 in remains[max_index]:
                number.pop(max_index)
                max_index = number.index(max(number))
                if len(number) == 1:
                    break
        if (judge(n, index) == (4 or 5 or 6 or 7) and (0 not in remains[max_index])) == True:
            while 0 not in remains[max_index]:
                number.pop(max_index)
                max_index = number.index(max(number))
                if len(number) == 1:
                    break
        score.append(number[max_index])
        piece.append(remains[max_index])
    return score, piece


def solve(X):
    N = len(X)
    n = int(round(N**0.5))
    Y, Remains = data_making(X)
    Y, Remains = fill_corner(X, Y, Remains)
    for i in range(len(Remains)):
        remain_index = calc_remain_index(Y)
        score, piece = index_sorting(n, Y, Remains)
        max_index = score.index(max(score))
        index = remain_index[max_index]
        max_piece = piece[max_index]
        Y[index] = max_piece
    return Y
