package io.jckpt.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** README's Layout names exactly the build's modules (the root pom's), each a folder with its own pom. */
class ModuleListTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void readmesLayoutNamesEveryModuleAndNoOther() throws IOException {
        Set<String> modules = new TreeSet<>();
        Matcher m = Pattern.compile("<module>([^<]+)</module>").matcher(Files.readString(ROOT.resolve("pom.xml")));
        while (m.find()) {
            modules.add(m.group(1));
        }
        assertTrue(modules.size() > 5, "modules of " + ROOT.resolve("pom.xml") + ": " + modules);
        String readme = Files.readString(ROOT.resolve("README.md"));
        int layout = readme.indexOf("## Layout");
        assertTrue(layout >= 0, "README.md has a Layout section");
        int open = readme.indexOf("```", layout);
        String block = readme.substring(open + 3, readme.indexOf("```", open + 3));
        Set<String> named = new TreeSet<>();
        Matcher folder = Pattern.compile("(?m)(?:^|\\s{2,})([a-z][a-z-]*)/\\s").matcher(block);
        while (folder.find()) {
            named.add(folder.group(1));
        }
        named.remove("docs"); // a folder, not a module
        assertEquals(modules, named, "README.md's Layout against the root pom's modules");
        for (String module : modules) {
            assertTrue(Files.isRegularFile(ROOT.resolve(module).resolve("pom.xml")), module + "/pom.xml");
        }
    }
}
