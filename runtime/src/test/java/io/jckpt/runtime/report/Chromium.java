package io.jckpt.runtime.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Headless Chromium for the report page's tests: finds the browser, runs it on a page (screenshot or
 * DOM dump), and reads where the browser laid out every label of the page's drawings.
 */
final class Chromium {
    /** A script the tests add to a copy of the page: every visible SVG label's box, as JSON in a pre. */
    private static final String PROBE = "<script>(function(){var out=[];"
            + "document.querySelectorAll('svg text:not(.failure)').forEach(function(t){var r=t.getBoundingClientRect();"
            + "if(r.width>0&&r.height>0&&getComputedStyle(t).visibility!=='hidden')out.push({text:t.firstChild?t.firstChild.nodeValue:'',"
            + "cls:t.getAttribute('class')||'',svg:t.closest('svg').id,x:r.left,y:r.top,w:r.width,h:r.height});});"
            + "var p=document.createElement('pre');p.id='label-boxes';p.textContent=JSON.stringify(out);"
            + "document.body.appendChild(p);})();</script>";
    private static final Pattern BOXES = Pattern.compile("<pre id=\"label-boxes\">(.*?)</pre>", Pattern.DOTALL);

    private final Path binary;

    private Chromium(Path binary) {
        this.binary = binary;
    }

    /** What one Chromium run printed. */
    record Ran(String stdout, String stderr) {
    }

    /** A label as laid out: its text, its class, the drawing it is in and its box in the page's pixels. */
    record Box(String text, String cls, String svg, double x, double y, double w, double h) {
        boolean intersects(Box o) {
            return x < o.x + o.w && o.x < x + w && y < o.y + o.h && o.y < y + h;
        }
    }

    /** {@code -Djckpt.chromium=FILE}, else chromium (or chromium-browser) on PATH; null when none. */
    static Chromium find() {
        String configured = System.getProperty("jckpt.chromium");
        if (configured != null && !configured.isBlank()) {
            return new Chromium(Path.of(configured));
        }
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(File.pathSeparator)) {
            for (String name : List.of("chromium", "chromium-browser")) {
                Path candidate = Path.of(dir, name);
                if (Files.isExecutable(candidate)) {
                    return new Chromium(candidate);
                }
            }
        }
        return null;
    }

    static String skipped() {
        return "no chromium on PATH (nor -Djckpt.chromium=FILE): bin/setup-browser installs Debian's chromium when"
                + " run as root; the report page's browser test is skipped";
    }

    /** Runs the browser with {@code action} ({@code --screenshot=FILE}, {@code --dump-dom}) on {@code page}. */
    Ran run(Path tmp, String action, Path page) throws Exception {
        Path profile = Files.createTempDirectory(tmp, "chromium-profile");
        Path stdout = tmp.resolve("chromium.out");
        Path stderr = tmp.resolve("chromium.err");
        List<String> command = new ArrayList<>(List.of(binary.toString(), "--headless=new", "--no-sandbox",
                "--disable-gpu", "--no-first-run", "--user-data-dir=" + profile, "--window-size=1400,1000",
                "--enable-logging=stderr", "--v=0", action, page.toUri().toString()));
        Process p = new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
        p.getOutputStream().close();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("chromium did not finish in 60 s: " + Files.readString(stderr));
        }
        Ran ran = new Ran(Files.readString(stdout), Files.readString(stderr));
        assertEquals(0, p.exitValue(), ran.stderr());
        return ran;
    }

    /**
     * The page's DOM as the browser built it, and its labels' boxes: a copy of the page with the probe
     * script (the page itself has none) is dumped.
     */
    Laid layOut(Path tmp, Path page) throws Exception {
        String html = Files.readString(page);
        assertTrue(html.contains("</body>"), "a page with a body");
        Path probed = tmp.resolve("probed-" + page.getFileName());
        Files.writeString(probed, html.replace("</body>", PROBE + "</body>"));
        Ran ran = run(tmp, "--dump-dom", probed);
        Matcher m = BOXES.matcher(ran.stdout());
        assertTrue(m.find(), "the probe wrote the labels' boxes: " + ran.stderr());
        JsonNode json = new ObjectMapper().readTree(m.group(1).replace("&amp;", "&").replace("&lt;", "<")
                .replace("&gt;", ">").replace("&quot;", "\""));
        List<Box> boxes = new ArrayList<>();
        for (JsonNode b : json) {
            boxes.add(new Box(b.path("text").asText(), b.path("cls").asText(), b.path("svg").asText(), b.path("x").asDouble(),
                    b.path("y").asDouble(), b.path("w").asDouble(), b.path("h").asDouble()));
        }
        return new Laid(ran, boxes);
    }

    /** A page laid out: the browser's run (its DOM dump) and the labels' boxes. */
    record Laid(Ran ran, List<Box> boxes) {
        /** Fails naming every pair of labels whose boxes intersect. */
        void assertNoLabelsOverlap() {
            List<String> overlaps = new ArrayList<>();
            for (int i = 0; i < boxes.size(); i++) {
                for (int j = i + 1; j < boxes.size(); j++) {
                    if (boxes.get(i).intersects(boxes.get(j))) {
                        overlaps.add(boxes.get(i) + " and " + boxes.get(j));
                    }
                }
            }
            assertTrue(overlaps.isEmpty(), overlaps.size() + " pairs of labels overlap:\n" + String.join("\n", overlaps));
        }
    }

    static void assertNoConsoleError(Ran ran) {
        for (String line : ran.stderr().lines().toList()) {
            // Chromium logs every console message of the page as ...:CONSOLE:<line>] "..." (an exception:
            // "Uncaught ..."); the page has no script (the probe logs nothing), so any is an error
            assertFalse(line.contains("Uncaught") || line.contains(":CONSOLE"), "a console message from the page: " + line);
        }
    }
}
