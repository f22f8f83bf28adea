package io.jckpt.runtime.rank;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

/** Finds and calls a program's {@code public static void main(String[])} in a given loader. */
final class ProgramRunner {
    private ProgramRunner() {
    }

    static Method findMain(String className, ClassLoader loader) throws ReflectiveOperationException {
        Class<?> type = Class.forName(className, true, loader);
        Method main = type.getMethod("main", String[].class);
        if (!Modifier.isStatic(main.getModifiers()) || main.getReturnType() != void.class) {
            throw new NoSuchMethodException(className + " has no public static void main(String[])");
        }
        return main;
    }

    /**
     * The arguments MPI.Init expects in front of the program's own: rank, then the device's
     * second argument (niodev: the conf string; smpdev: the world size), then the device name.
     */
    static String[] mpjArgs(int rank, String second, String device, String[] programArgs) {
        String[] mpj = new String[programArgs.length + 3];
        mpj[0] = Integer.toString(rank);
        mpj[1] = second;
        mpj[2] = device;
        System.arraycopy(programArgs, 0, mpj, 3, programArgs.length);
        return mpj;
    }

    /** Runs main in the calling thread; returns normally or throws what main threw. */
    static void run(Method main, String[] args) throws Throwable {
        try {
            main.invoke(null, (Object) args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
