/* A Canasta bot in C: standard library only, compiles with `cc -O2 -o bot bot.c`.
 *
 * It reads the referee's JSON lines (protocol/README.md) with a small bounded reader of its
 * own (lines up to MAX_LINE bytes, nesting up to MAX_DEPTH), answers hello with ready, each
 * act with a listed move (a random one, preferring to meld and take the pile), answers again
 * after an error with retry, and exits on bye.  Debug output goes to stderr, never stdout;
 * every answer ends with a newline and fflush(stdout), or the referee never sees it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_LINE (1 << 22)
#define MAX_DEPTH 64
#define MAX_MOVES 4096

static char line[MAX_LINE + 2];

/* Skip one JSON value starting at p; returns the position after it, or NULL if malformed. */
static const char *skip_ws(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    return p;
}

static const char *skip_string(const char *p) {
    if (*p != '"') return NULL;
    for (p++; *p; p++) {
        if (*p == '\\') { if (!*++p) return NULL; }
        else if (*p == '"') return p + 1;
    }
    return NULL;
}

static const char *skip_value(const char *p, int depth) {
    p = skip_ws(p);
    if (depth > MAX_DEPTH) return NULL;
    if (*p == '"') return skip_string(p);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p = skip_ws(p + 1);
        if (*p == close) return p + 1;
        for (;;) {
            if (close == '}') {
                p = skip_string(skip_ws(p));
                if (!p) return NULL;
                p = skip_ws(p);
                if (*p++ != ':') return NULL;
            }
            p = skip_value(p, depth + 1);
            if (!p) return NULL;
            p = skip_ws(p);
            if (*p == ',') { p++; continue; }
            if (*p == close) return p + 1;
            return NULL;
        }
    }
    if (!*p) return NULL;
    while (*p && !strchr(",}] \t\r\n", *p)) p++;  /* number, true, false, null */
    return p;
}

/* The value of top-level key `key` in object `obj`, or NULL. */
static const char *field(const char *obj, const char *key) {
    const char *p = skip_ws(obj);
    size_t n = strlen(key);
    if (*p++ != '{') return NULL;
    for (;;) {
        p = skip_ws(p);
        if (*p != '"') return NULL;
        const char *k = p + 1, *end = skip_string(p);
        if (!end) return NULL;
        p = skip_ws(end);
        if (*p++ != ':') return NULL;
        p = skip_ws(p);
        if ((size_t)(end - 1 - k) == n && strncmp(k, key, n) == 0) return p;
        p = skip_value(p, 1);
        if (!p) return NULL;
        p = skip_ws(p);
        if (*p++ != ',') return NULL;
    }
}

static int is_string(const char *v, const char *s) {
    size_t n = strlen(s);
    return v && *v == '"' && strncmp(v + 1, s, n) == 0 && v[n + 1] == '"';
}

/* Choose among the listed moves: each has "index" and "action" (draw, pile, meld, ...). */
static long choose(const char *moves) {
    long any[MAX_MOVES], good[MAX_MOVES];
    int n = 0, g = 0;
    const char *p = skip_ws(moves);
    if (*p++ != '[') return 0;
    for (p = skip_ws(p); *p && *p != ']' && n < MAX_MOVES;) {
        const char *idx = field(p, "index"), *act = field(p, "action");
        long i = idx ? strtol(idx, NULL, 10) : n;
        any[n++] = i;
        if (is_string(act, "meld") || is_string(act, "pile") || is_string(act, "add")) good[g++] = i;
        p = skip_value(p, 1);
        if (!p) break;
        p = skip_ws(p);
        if (*p == ',') p = skip_ws(p + 1);
    }
    if (g) return good[rand() % g];
    return n ? any[rand() % n] : 0;
}

int main(void) {
    char last_moves_id[32] = "null";
    long last_choice = 0;
    srand((unsigned)time(NULL));
    fprintf(stderr, "bot.c starting\n");
    while (fgets(line, sizeof line, stdin)) {
        size_t len = strlen(line);
        if (len > MAX_LINE) {  /* too long: skip the rest of that line */
            int c;
            while ((c = getchar()) != EOF && c != '\n') {}
            continue;
        }
        const char *type = field(line, "type");
        if (is_string(type, "hello")) {
            printf("{\"type\":\"ready\",\"protocol\":\"canasta/1\",\"name\":\"starter.c\"}\n");
        } else if (is_string(type, "act")) {
            const char *id = field(line, "id"), *moves = field(line, "moves");
            long k = id ? strtol(id, NULL, 10) : 0;
            snprintf(last_moves_id, sizeof last_moves_id, "%ld", k);
            last_choice = moves ? choose(moves) : 0;
            printf("{\"type\":\"move\",\"id\":%s,\"index\":%ld}\n", last_moves_id, last_choice);
        } else if (is_string(type, "error")) {
            const char *retry = field(line, "retry");
            fprintf(stderr, "bot.c: error from the referee: %.200s", line);
            if (retry && strncmp(retry, "true", 4) == 0)  /* the first listed move is legal */
                printf("{\"type\":\"move\",\"id\":%s,\"index\":0}\n", last_moves_id);
        } else if (is_string(type, "bye")) {
            break;
        }
        fflush(stdout);
    }
    return 0;
}
