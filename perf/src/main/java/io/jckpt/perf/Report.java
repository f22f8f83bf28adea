package io.jckpt.perf;

import java.util.List;

/** A Markdown report being written: headings, paragraphs and tables. */
final class Report {
    private final StringBuilder text = new StringBuilder();

    Report heading(int level, String title) {
        text.append('\n').append("#".repeat(level)).append(' ').append(title).append("\n\n");
        return this;
    }

    Report paragraph(String p) {
        text.append(p).append("\n\n");
        return this;
    }

    Report table(List<String> header, List<List<String>> rows) {
        text.append("| ").append(String.join(" | ", header)).append(" |\n");
        text.append("|").append("---|".repeat(header.size())).append('\n');
        for (List<String> row : rows) {
            text.append("| ").append(String.join(" | ", row)).append(" |\n");
        }
        text.append('\n');
        return this;
    }

    Report raw(String markdown) {
        text.append(markdown);
        return this;
    }

    @Override
    public String toString() {
        return text.toString();
    }
}
