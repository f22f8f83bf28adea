package io.jckpt.chaos;

/**
 * The failure a {@link Scenario#CORPUS} run injects into a program of the corpus, drawn per run: each
 * one the job's configuration (m = 1, no disk) survives, so every run must end identical to the
 * program's failure-free run.
 */
enum CorpusFailure {
    KILL("kill", "SIGKILL of one rank"),
    NODE("node", "SIGKILL of one rank, its store wiped"),
    NODE2("node2spread", "SIGKILL of two non-adjacent ranks, their stores wiped"),
    SIGSTOP("sigstop", "SIGSTOP of one rank (launcher with --detector heartbeat)");

    final String label;
    final String description;

    CorpusFailure(String label, String description) {
        this.label = label;
        this.description = description;
    }
}
