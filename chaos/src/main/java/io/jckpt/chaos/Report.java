package io.jckpt.chaos;

import io.jckpt.chaos.Campaign.CorpusReference;
import io.jckpt.chaos.Campaign.Outcome;
import io.jckpt.chaos.Campaign.Result;
import io.jckpt.chaos.Campaign.Settings;
import io.jckpt.chaos.corpus.Corpus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A campaign's report ({@code OUT/report.md}, also printed): the table by scenario, the corpus runs
 * by program, the verdict, and a row for every run that was not identical or counts against the
 * verdict. Made from the results alone, after the last run.
 */
final class Report {
    private final Settings settings;
    private final Injector.Timings reference;
    private final String expectedHex;
    private final Map<Corpus, CorpusReference> corpusReferences;

    /**
     * @param reference        the chaos program's latest failure-free timings (null: no chaos program run)
     * @param expectedHex      the chaos program's expected checksum
     * @param corpusReferences each corpus program's failure-free run
     */
    Report(Settings settings, Injector.Timings reference, String expectedHex,
           Map<Corpus, CorpusReference> corpusReferences) {
        this.settings = settings;
        this.reference = reference;
        this.expectedHex = expectedHex;
        this.corpusReferences = corpusReferences;
    }

    /** The report of {@code results}: the tables, the verdict, every run that was not identical. */
    String markdown(List<Result> results) {
        Map<Scenario, List<Result>> by = new EnumMap<>(Scenario.class);
        for (Result r : results) {
            by.computeIfAbsent(r.scenario(), s -> new ArrayList<>()).add(r);
        }
        StringBuilder md = new StringBuilder();
        md.append("## Fault campaign: ").append(results.size()).append(" runs, seed ").append(settings.seed())
                .append(settings.quick() ? " (quick)" : "").append(settings.hosts() > 0 ? ", across " + settings.hosts()
                        + " test hosts (" + CampaignHosts.SLOTS + " ranks each, spare hosts for lost ones)" : "")
                .append('\n').append('\n');
        String when = Instant.now().toString().substring(0, 16).replace('T', ' ') + " UTC";
        if (reference != null) {
            md.append(String.format(Locale.ROOT, "%s; %d ranks, %d iterations, %d elements per array, %d ms per iteration,"
                            + " here() every %d, disk ratio %d; latest failure-free run %.1f s; checksum %s; Java %s.%n%n",
                    when, settings.ranks(), settings.iterations(), settings.elements(), settings.sleepMillis(),
                    settings.every(), settings.diskRatio(), reference.total(), expectedHex,
                    System.getProperty("java.version")));
        } else {
            md.append(String.format(Locale.ROOT, "%s; %d ranks; Java %s.%n%n", when, settings.ranks(),
                    System.getProperty("java.version")));
        }
        md.append("| scenario | runs | identical | clear error | wrong | slow | stall | unexpected | orphans | leftovers"
                + " | not injected | skipped | longest / budget (s) |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        int[] total = new int[11];
        for (Map.Entry<Scenario, List<Result>> e : by.entrySet()) {
            int[] c = counts(e.getValue());
            for (int i = 0; i < c.length; i++) {
                total[i] += c[i];
            }
            Result longest = e.getValue().stream().max(Comparator.comparingDouble(Result::seconds)).orElseThrow();
            md.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %.1f / %.1f |%n",
                    e.getKey().label, c[0], c[1], c[2], c[3], c[10], c[4], c[5], c[6], c[7], c[8], c[9], longest.seconds(),
                    longest.budget()));
        }
        md.append(String.format(Locale.ROOT, "| **all** | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | |%n%n",
                total[0], total[1], total[2], total[3], total[10], total[4], total[5], total[6], total[7], total[8],
                total[9]));
        List<Result> corpusRuns = results.stream().filter(r -> r.corpus() != null).toList();
        if (!corpusRuns.isEmpty()) {
            corpusTable(md, corpusRuns);
        }
        long overloaded = results.stream().filter(r -> r.outcome() == Outcome.SLOW && r.overloaded()).count();
        if (overloaded > 0) {
            md.append(overloaded).append(" slow run(s) ended with a load average above 1.5 per core (other work on"
                    + " the machine): listed, not counted against the verdict.\n\n");
        }
        long bad = results.stream().filter(Result::bad).count();
        md.append(bad == 0 ? "Verdict: **pass** (no wrong result, slow run, stall, unexpected failure, orphan or leftover store).\n"
                : "Verdict: **FAIL**: " + bad + " bad run(s).\n");
        List<Result> notIdentical = results.stream().filter(r -> r.outcome() != Outcome.IDENTICAL || r.bad()).toList();
        if (!notIdentical.isEmpty()) {
            md.append("\n| run | scenario | outcome | injected | time / budget (s), load | what happened |\n"
                    + "|---|---|---|---|---|---|\n");
            for (Result r : notIdentical) {
                md.append(String.format(Locale.ROOT, "| %d | %s | %s%s%s | %s | %.1f / %.1f, %.1f | %s |%n", r.index(),
                        r.scenario().label, r.outcome().label, r.orphans().isEmpty() ? "" : ", orphans " + r.orphans(),
                        r.leftover() ? ", leftover store" : "", r.injection().replace("|", "/"), r.seconds(), r.budget(),
                        r.load(), r.detail().replace("|", "/")));
            }
        }
        md.append("\nScenarios: ");
        for (Scenario s : settings.scenarios()) {
            md.append("`").append(s.label).append("` ").append(s.description).append("; ");
        }
        md.setLength(md.length() - 2);
        md.append(".\n");
        return md.toString();
    }

    /** The corpus runs by program, with the failures drawn and each program's failure-free result. */
    private void corpusTable(StringBuilder md, List<Result> runs) {
        Map<Corpus, List<Result>> by = new EnumMap<>(Corpus.class);
        for (Result r : runs) {
            by.computeIfAbsent(r.corpus().program(), p -> new ArrayList<>()).add(r);
        }
        md.append("Corpus runs by program (failures drawn: ");
        for (CorpusFailure f : CorpusFailure.values()) {
            md.append('`').append(f.label).append("` ").append(f.description).append(f.ordinal() < CorpusFailure.values().length
                    - 1 ? ", " : "):\n\n");
        }
        md.append("| program | runs | identical | clear error | wrong | slow | stall | unexpected | orphans | leftovers"
                + " | not injected | failures (kill/node/node2spread/sigstop) | failure-free run (s) | longest / budget (s) |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Map.Entry<Corpus, List<Result>> e : by.entrySet()) {
            int[] c = counts(e.getValue());
            int[] kinds = new int[CorpusFailure.values().length];
            e.getValue().forEach(r -> kinds[r.corpus().failure().ordinal()]++);
            Result longest = e.getValue().stream().max(Comparator.comparingDouble(Result::seconds)).orElseThrow();
            CorpusReference ref = corpusReferences.get(e.getKey());
            md.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d/%d/%d/%d | %s |"
                            + " %.1f / %.1f |%n", e.getKey().label, c[0], c[1], c[2], c[3], c[10], c[4], c[5], c[6], c[7],
                    c[8], kinds[0], kinds[1], kinds[2], kinds[3], ref == null || ref.timings() == null ? "failed"
                            : String.format(Locale.ROOT, "%.1f", ref.timings().total()), longest.seconds(), longest.budget()));
        }
        md.append('\n');
        for (Map.Entry<Corpus, CorpusReference> e : corpusReferences.entrySet()) {
            md.append("- `").append(e.getKey().label).append("` (").append(e.getKey().style).append("): ")
                    .append(e.getValue().result() != null ? "`" + e.getKey().resultPrefix + e.getValue().result() + "`"
                            : "no failure-free run: " + e.getValue().failure()).append('\n');
        }
        md.append('\n');
    }


    private static int[] counts(List<Result> results) {
        int[] c = new int[11];
        for (Result r : results) {
            c[0]++;
            switch (r.outcome()) {
                case IDENTICAL -> c[1]++;
                case CLEAR_ERROR -> c[2]++;
                case WRONG -> c[3]++;
                case STALL -> c[4]++;
                case UNEXPECTED -> c[5]++;
                case SKIPPED -> c[9]++;
                case SLOW -> c[10]++;
            }
            c[6] += r.orphans().isEmpty() ? 0 : 1;
            c[7] += r.leftover() ? 1 : 0;
            c[8] += r.missed() && r.outcome() != Outcome.SKIPPED ? 1 : 0;
        }
        return c;
    }
}
