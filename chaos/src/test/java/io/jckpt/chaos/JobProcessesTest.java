package io.jckpt.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The campaign finds a job's processes by the environment the launcher gives them, and signals
 * them: here with real processes carrying a made-up job's variables.
 */
class JobProcessesTest {
    @Test
    void findsTheJobsProcessesByEnvironmentStopsAndKillsThem() throws Exception {
        String job = "chaos-test-" + ProcessHandle.current().pid();
        Process rank = start(Map.of("JCKPT_JOB_ID", job, "JCKPT_RANK", "2", "JCKPT_EPOCH", "1"));
        Process standby = start(Map.of("JCKPT_JOB_ID", job, "JCKPT_STANDBY", "0", "JCKPT_EPOCH", "0"));
        Process other = start(Map.of("JCKPT_JOB_ID", job + "-other", "JCKPT_RANK", "2"));
        try {
            List<JobProcesses.Member> members = JobProcesses.of(job);
            assertEquals(2, members.size(), members.toString());
            assertTrue(members.contains(new JobProcesses.Member(rank.pid(), 2, -1, 1)), members.toString());
            assertTrue(members.contains(new JobProcesses.Member(standby.pid(), -1, 0, 0)), members.toString());

            JobProcesses.signal("STOP", rank.pid());
            assertEquals(Optional.of('T'), awaitState(rank.pid(), 'T'));
            JobProcesses.kill(List.of(rank.pid(), standby.pid())); // SIGKILL ends a stopped process too
            assertEquals(List.of(), JobProcesses.awaitGone(List.of(rank.pid(), standby.pid()), 5_000));
            assertEquals(List.of(), JobProcesses.of(job));
            assertTrue(other.isAlive());
        } finally {
            rank.destroyForcibly();
            standby.destroyForcibly();
            other.destroyForcibly();
        }
    }

    private static Process start(Map<String, String> env) throws Exception {
        ProcessBuilder builder = new ProcessBuilder("sleep", "60");
        builder.environment().putAll(env);
        Process p = builder.start();
        p.getOutputStream().close();
        return p;
    }

    /** The process's state once it is {@code wanted} (bounded: 5 s). */
    private static Optional<Character> awaitState(long pid, char wanted) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        Optional<Character> state = JobProcesses.state(pid);
        while (!state.equals(Optional.of(wanted)) && System.nanoTime() < deadline) {
            Thread.sleep(5);
            state = JobProcesses.state(pid);
        }
        return state;
    }
}
