package io.jckpt.runtime.launcher;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.image.ImageKey;
import io.jckpt.image.JobKeyFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which job key the launcher gives the ranks: the same for every start of a job that can be restarted. */
class LauncherJobKeyTest {
    @TempDir
    Path tmp;

    @Test
    void aJobWithAnIdKeepsItsKeyBesideItsStoresAndAJobWithoutOneGetsANewKey() throws Exception {
        Path memory = tmp.resolve("shm");
        List<String> warnings = new ArrayList<>();
        byte[] first = LauncherJobKey.resolve(memory, "job-a", true, null, warnings::add);
        Path file = memory.resolve("job-a").resolve(JobKeyFile.NAME);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertArrayEquals(first, LauncherJobKey.resolve(memory, "job-a", true, null, warnings::add), "a restart");
        byte[] once = LauncherJobKey.resolve(memory, "random-1", false, null, warnings::add);
        assertFalse(Files.exists(memory.resolve("random-1")), "nothing kept for a job that is not restarted");
        assertFalse(Arrays.equals(once, LauncherJobKey.resolve(memory, "random-1", false, null, warnings::add)));
        assertTrue(warnings.isEmpty(), warnings.toString());
    }

    @Test
    void theKeyFileOfTheJobsDiskDirectoryWinsAndAnUnusableOneIsReported() throws Exception {
        Path disk = tmp.resolve("disk");
        byte[] written = ImageKey.newJobKey();
        JobKeyFile.readOrCreate(disk.resolve("job-b").resolve(JobKeyFile.NAME), written);
        List<String> warnings = new ArrayList<>();
        // a restart on another machine: no node-local key; the disk directory has the job's
        assertArrayEquals(written, LauncherJobKey.resolve(tmp.resolve("empty-shm"), "job-b", true, disk, warnings::add));
        Files.writeString(disk.resolve("job-b").resolve(JobKeyFile.NAME), "garbage\n");
        LauncherJobKey.resolve(tmp.resolve("empty-shm"), "job-b", true, disk, warnings::add);
        assertEquals(1, warnings.size());
        assertTrue(warnings.get(0).startsWith("WARNING: the job key file " + disk.resolve("job-b").resolve(JobKeyFile.NAME)
                + " does not hold a key in hex"), warnings.get(0));
    }
}
