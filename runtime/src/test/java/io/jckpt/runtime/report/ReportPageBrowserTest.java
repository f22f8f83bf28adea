package io.jckpt.runtime.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.LaunchedJob;
import java.awt.image.BufferedImage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report page of a real job (3 ranks, a disk level, a node loss, a recovery), written by the launcher
 * at the job's end, opened in a real headless browser (Debian's Chromium, {@code bin/setup-browser}):
 * its screenshot is a drawing (not blank: many colours, the lanes' colour over a large area), its DOM
 * has a lane per rank, the time axis' ticks in seconds, the work lost, the recovery phases, the disk
 * commits, the legend, the summary table and the here() chart, and the browser logged no console error.
 * Skipped, saying why, when no Chromium can be found.
 */
class ReportPageBrowserTest {
    private static final String LOOP = "io.jckpt.runtime.programs.CheckpointLoop";

    @Test
    void theLaunchersReportPageRendersInAHeadlessBrowser(@TempDir Path tmp) throws Exception {
        Chromium browser = Chromium.find();
        Assumptions.assumeTrue(browser != null, Chromium.skipped());
        Path events = tmp.resolve("job/events.jsonl");
        try (LaunchedJob job = LaunchedJob.start("-np", "3", "--on-failure", "respawn", "--standby", "0",
                "--kill", "1@round=4:wipe", "--events", events.toString(), "-cp", LaunchedJob.testClasses().toString(),
                LOOP, "12", "30", tmp.resolve("disk").toString(), "2")) {
            assertEquals(0, job.awaitExit(180_000), job.output());
            assertFalse(job.output().contains("report page"), "no warning about the page: " + job.output());
            // the launcher's last line says where both went
            assertTrue(job.output().contains("] events: " + events.toAbsolutePath() + "; report: "
                    + tmp.resolve("job/report.html").toAbsolutePath()), job.output());
        }
        Path page = tmp.resolve("job/report.html");
        assertTrue(Files.isRegularFile(page), "the launcher wrote the report page next to the events file");
        String html = Files.readString(page);
        assertFalse(Pattern.compile("(src|href)\\s*=\\s*\"(https?:)?//").matcher(html).find(),
                "self-contained: nothing fetched");

        // bin/ckpt-report writes the same page again from the events file
        Path again = tmp.resolve("again.html");
        Process report = new ProcessBuilder(LaunchedJob.repoRoot().resolve("bin/ckpt-report").toString(),
                events.toString(), again.toString()).redirectErrorStream(true).start();
        report.getOutputStream().close();
        String reportOutput = new String(report.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(report.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, report.exitValue(), reportOutput);
        assertEquals(html, Files.readString(again));

        Path png = tmp.resolve("report.png");
        Chromium.Ran shot = browser.run(tmp, "--screenshot=" + png, page);
        assertTrue(Files.size(png) > 0, shot.stderr());
        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(1400, image.getWidth());
        Set<Integer> colours = new HashSet<>();
        long notWhite = 0;
        long lane = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                int rgb = image.getRGB(x, y) & 0xffffff;
                colours.add(rgb);
                notWhite += rgb == 0xffffff ? 0 : 1;
                lane += rgb == 0xdde8f3 ? 1 : 0;
            }
        }
        long pixels = (long) image.getWidth() * image.getHeight();
        assertTrue(colours.size() > 50, "a drawing, not a blank page: " + colours.size() + " colours");
        assertTrue(notWhite > pixels / 20, notWhite + " of " + pixels + " pixels not white");
        assertTrue(lane > 3 * 500, "the lanes are drawn: " + lane + " pixels of the lanes' colour");
        Chromium.assertNoConsoleError(shot);

        Chromium.Laid laid = browser.layOut(tmp, page);
        laid.assertNoLabelsOverlap();
        String rendered = laid.ran().stdout();
        for (int rank = 0; rank < 3; rank++) {
            assertTrue(rendered.contains("id=\"lane-" + rank + "\""), "lane of rank " + rank + " in\n" + rendered);
        }
        assertFalse(rendered.contains("id=\"lane-3\""), "one lane per rank");
        for (String element : List.of("id=\"legend\"", "class=\"swatch\"", "<table id=\"summary\"",
                "<table id=\"recoveries\"", "id=\"here-chart\"", "class=\"ckpt\"", "class=\"disk\"", "class=\"lost\"",
                "class=\"injection\"", "class=\"failure\"", "class=\"rollback\"", "data-phase=\"detection\"",
                "data-phase=\"recovery\"", "data-phase=\"rollbacks\"", "<b id=\"status\">completed</b>",
                // the start-up's phases, named from the launcher's world_formed and each rank's rank_open
                "data-phase=\"starting\"", "data-phase=\"mpi_init\"", "data-phase=\"open\"",
                "data-phase=\"first_here\"", "<table id=\"startup\"")) {
            assertTrue(rendered.contains(element), element + " in\n" + rendered);
        }
        assertTrue(Pattern.compile("class=\"tick\"[^>]*>\\d+(\\.\\d+)? s</text>").matcher(rendered).results().count() >= 4,
                "the time axis has ticks in seconds");
        Chromium.assertNoConsoleError(laid.ran());
    }

}
