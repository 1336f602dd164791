import ArgumentParser
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftCommandLine
import GraftHost
import GraftMinisign
import GraftSupport

struct Sign: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Sign a plugin file with a minisign secret key: write FILE.minisig beside it.",
        discussion: """
            The plugin is read in the scanner child for its id and version. The signature is minisign's
            (prehashed, BLAKE2b-512), and its trusted comment names the plugin's id, version and SHA-256, which a
            host that trusts the key checks before it loads the file; `minisign -Vm FILE -p KEY.pub` verifies it
            too. A key sealed with a password asks for it on the terminal, or reads one line from standard input.
            Make a key with `minisign -G -p KEY.pub -s KEY.key`.
            """)

    @Argument(help: ArgumentHelp("The plugin file.", valueName: "file"))
    var file: String

    @Option(help: ArgumentHelp("The minisign secret key file.", valueName: "key"))
    var secretKey: String

    @OptionGroup var options: GlobalOptions

    func run() throws {
        let key: Minisign.SecretKey
        let info: PluginDescription
        do throws(GraftError) {
            key = try PluginSigning.secretKey(at: secretKey) { Password.read(prompt: "Password for \(secretKey): ") }
            info = try describeOne(file, options: options)
        } catch {
            throw CommandFailure(error: error, json: options.json, exitCode: 1)
        }
        // Beside the file itself: where a host looks, when the plugin is reached through a link.
        let signaturePath = FilePaths.resolvingSymlinks(file) + ".minisig"
        do throws(GraftError) {
            let (text, sha256) = try PluginSigning.signature(ofPluginAt: file, declaring: info, key: key)
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: signaturePath), options: .atomic)
            } catch {
                throw GraftError(.permissionDenied, "could not write \(signaturePath): \(error)", path: signaturePath)
            }
            if options.json {
                Output.json(.object([
                    "signature": .string(signaturePath), "keyID": .string(key.id), "id": .string(info.id),
                    "version": .string(info.version), "sha256": .string(sha256),
                ]))
            } else {
                Output.line("wrote \(signaturePath): \(info.id) \(info.version) signed with key \(key.id)")
            }
        } catch {
            throw CommandFailure(error: error, json: options.json, exitCode: 1)
        }
    }
}

struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a plugin file's signature (FILE.minisig) against a minisign public key.",
        discussion: """
            Says who signed what (key id, plugin id, version) and exits 0 when the signature holds for this file,
            its id, version and SHA-256. Otherwise exits 1 with the refusal's code: signature_missing,
            signature_invalid (the file changed, or the signature is another file's or does not read),
            signature_mismatch (its trusted comment names another id, version or hash) or publisher_not_trusted
            (another key signed it).
            """)

    @Argument(help: ArgumentHelp("The plugin file.", valueName: "file"))
    var file: String

    @Option(help: ArgumentHelp("The minisign public key file.", valueName: "key"))
    var publicKey: String

    @OptionGroup var options: GlobalOptions

    func run() throws {
        do throws(GraftError) {
            let key = try PluginSigning.publicKey(at: publicKey)
            let info = try describeOne(file, options: options)
            let name = FilePaths.lastComponent(of: publicKey)
            guard let signer = try PluginSigning.verify(pluginAt: file, declaring: info, key: key, name: name) else { return }
            if options.json {
                Output.json(.object([
                    "verified": .bool(true), "keyID": .string(signer.keyID), "id": .string(info.id), "version": .string(info.version),
                ]))
            } else {
                Output.line("\(file): signed with key \(signer.keyID) (\(publicKey)) for \(info.id) \(info.version)")
            }
        } catch {
            throw CommandFailure(error: error, json: options.json, exitCode: 1)
        }
    }
}

/// The plugin at `path` as a host with only that file on its search path
/// reads it (in the scanner child, signatures not asked for); its failure if
/// it does not load.
private func describeOne(_ path: String, options: GlobalOptions) throws(GraftError) -> PluginDescription {
    var settings = options.settings
    settings.pluginPaths = [path]
    settings.onlyPluginPath = true
    settings.noCache = true
    settings.checksSignatures = false
    let host = settings.makeHost()
    if let plugin = host.plugins.first { return plugin }
    throw host.failures.first?.error ?? GraftError(.pluginNotFound, "\(path) holds no plugin.", path: path)
}

/// A password: asked on the terminal without echo, else one line of standard input.
enum Password {
    static func read(prompt: String) -> String? {
        var saved = termios()
        let isTerminal = isatty(0) == 1 && tcgetattr(0, &saved) == 0
        if isTerminal {
            writeToStandardError(prompt)
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(0, TCSAFLUSH, &quiet)
        }
        defer {
            if isTerminal {
                tcsetattr(0, TCSAFLUSH, &saved)
                writeToStandardError("\n")
            }
        }
        return readLine(strippingNewline: true)
    }
}
