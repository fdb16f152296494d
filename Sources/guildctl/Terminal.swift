import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The controlling terminal, for prompts and live views.
enum Terminal {
    /// Whether stdout is a terminal.
    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Prompts on stderr and reads one line from stdin with echo off; nil when stdin is not a terminal.
    static func readSecret(prompt: String) -> String? {
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return nil }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        FileHandle.standardError.write(Data(prompt.utf8))
        _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        let line = readLine(strippingNewline: true)
        _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
        FileHandle.standardError.write(Data("\n".utf8))
        return line
    }
}
