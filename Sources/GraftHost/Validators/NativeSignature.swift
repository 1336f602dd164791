/// The declared C signature of a native validator, such as
/// `bool(string,int64,int64)`. Grammar (whitespace is ignored):
///
///     signature := return "(" argument ("," argument)* ")"
///     return    := "bool" | "int32"            (non-zero means valid)
///     argument  := "string" | "int32" | "int64" | "double" | "bool"
///
/// The first argument receives the value being validated, the rest the
/// params in order. At most `maximumArguments` (GRAFT_MAX_NATIVE_ARGS).
struct NativeSignature: Sendable, Hashable, CustomStringConvertible {
    enum ReturnType: String, Sendable, Hashable { case bool, int32 }
    enum ArgumentType: String, Sendable, Hashable { case string, int32, int64, double, bool }

    static let maximumArguments = 16

    var returnType: ReturnType
    var arguments: [ArgumentType]

    init(returnType: ReturnType, arguments: [ArgumentType]) {
        self.returnType = returnType
        self.arguments = arguments
    }

    /// Parses a signature. Throws `invalid_signature` saying what is wrong.
    init(parsing text: String) throws(GraftError) {
        func refuse(_ reason: String) -> GraftError {
            GraftError(.invalidSignature, "signature '\(text)' \(reason)")
        }
        let compact = text.filter { !$0.isWhitespace }
        guard let open = compact.firstIndex(of: "(") else {
            throw refuse("has no '(': write it as RETURN(ARG, ...), for example bool(string).")
        }
        guard compact.last == ")" else { throw refuse("does not end with ')'.") }
        let inner = compact[compact.index(after: open)..<compact.index(before: compact.endIndex)]
        guard !inner.contains("("), !inner.contains(")") else { throw refuse("has unbalanced or nested parentheses.") }
        guard let returnType = ReturnType(rawValue: String(compact[..<open])) else {
            throw refuse("returns '\(compact[..<open])'; a validator returns bool or int32.")
        }
        guard !inner.isEmpty else { throw refuse("takes no argument; the first argument receives the value.") }
        var arguments: [ArgumentType] = []
        for (index, part) in inner.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            guard let type = ArgumentType(rawValue: String(part)) else {
                throw refuse(
                    "has argument \(index + 1) of unknown type '\(part)'; use string, int32, int64, double or bool.")
            }
            arguments.append(type)
        }
        guard arguments.count <= Self.maximumArguments else {
            throw refuse("has \(arguments.count) arguments; the most is \(Self.maximumArguments).")
        }
        self.init(returnType: returnType, arguments: arguments)
    }

    var description: String {
        "\(returnType.rawValue)(\(arguments.map(\.rawValue).joined(separator: ",")))"
    }

    /// The type a param of this argument is declared as in listings.
    var paramType: [ValueType] {
        arguments.dropFirst().map { argument in
            switch argument {
            case .string: .string
            case .int32, .int64, .double: .number
            case .bool: .boolean
            }
        }
    }
}
