import { readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import ts from "typescript";

/**
 * The package's public API as the TypeScript compiler sees it: the entry points of package.json
 * `exports`, the names each exports (values and types), and the check that a user can name every
 * type they pass to or get back from an exported function.
 */

const root = process.cwd();

/** Subpath (`.`, `./gateway`, ...) to its source entry file, from package.json `exports`. */
export function entryPoints(): Map<string, string> {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    exports: Record<string, string | { types: string; import: string }>;
  };
  const entries = new Map<string, string>();
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target === "string") continue;
    entries.set(subpath, join(root, target.import.replace("./dist/", "").replace(/\.js$/, ".ts")));
  }
  return entries;
}

export interface PublicApi {
  /** Every exported name of each subpath, sorted. */
  readonly names: Map<string, string[]>;
  /** Types of our own source that a parameter or result of an exported function uses but no entry exports. */
  readonly unnameable: string[];
}

/** Reads every entry point in one program, so a symbol exported by two entries is the same symbol. */
export function readPublicApi(entries: Map<string, string> = entryPoints()): PublicApi {
  const program = ts.createProgram([...entries.values()], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const resolved = (symbol: ts.Symbol) =>
    symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;

  const names = new Map<string, string[]>();
  const exported = new Set<ts.Symbol>();
  const roots: ts.Symbol[] = [];
  for (const [subpath, file] of entries) {
    const source = program.getSourceFile(file);
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`cannot read the exports of ${file}`);
    const symbols = checker.getExportsOfModule(module);
    names.set(subpath, symbols.map((s) => s.name).sort());
    for (const symbol of symbols) {
      exported.add(resolved(symbol));
      roots.push(resolved(symbol));
    }
  }

  const ours = (declaration: ts.Node | undefined) => {
    const file = declaration?.getSourceFile().fileName;
    return file !== undefined && relative(root, file).split(sep)[0] === "src";
  };
  const where = (symbol: ts.Symbol) => {
    const declaration = symbol.declarations?.[0];
    return declaration ? `${relative(root, declaration.getSourceFile().fileName)}` : "?";
  };
  const problems = new Set<string>();
  const seen = new Set<ts.Type>();

  /**
   * A type is nameable when it is declared outside our source (the language, Node, the SDK), exported
   * by an entry point, or written from nameable parts: a union, an intersection, a generic's
   * arguments, a private alias of such a type, an inline object or function type (whose signatures
   * are checked: a callback's parameters are what a user types when writing it).
   */
  const checkType = (type: ts.Type, use: string): void => {
    if (seen.has(type)) return;
    seen.add(type);
    const alias = type.aliasSymbol;
    if (alias && (!ours(alias.declarations?.[0]) || exported.has(alias))) {
      for (const argument of type.aliasTypeArguments ?? []) checkType(argument, use);
      return;
    }
    if (type.isUnionOrIntersection()) {
      for (const member of type.types) checkType(member, use);
      return;
    }
    if (type.flags & ts.TypeFlags.IndexedAccess) {
      const access = type as ts.IndexedAccessType;
      checkType(access.objectType, use);
      checkType(access.indexType, use);
      return;
    }
    if (type.flags & ts.TypeFlags.TypeParameter) {
      const constraint = checker.getBaseConstraintOfType(type);
      if (constraint && constraint !== type) checkType(constraint, use);
      return;
    }
    if (!(type.flags & ts.TypeFlags.Object)) return;
    const object = type as ts.ObjectType;
    if (object.objectFlags & ts.ObjectFlags.Reference) {
      for (const argument of checker.getTypeArguments(type as ts.TypeReference)) checkType(argument, use);
    }
    const symbol = (type as ts.TypeReference).target?.symbol ?? type.getSymbol();
    const named =
      symbol && symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.Class | ts.SymbolFlags.Enum);
    if (named) {
      if (ours(symbol.declarations?.[0]) && !exported.has(symbol)) {
        problems.add(`${symbol.name} (${where(symbol)}), used by ${use}`);
      }
      return;
    }
    for (const signature of type.getCallSignatures()) checkSignature(signature, use);
  };

  const checkSignature = (signature: ts.Signature, use: string): void => {
    for (const parameter of signature.getParameters()) {
      checkType(checker.getTypeOfSymbol(parameter), use);
    }
    checkType(signature.getReturnType(), use);
  };

  /** The members a user calls: public methods (and function-valued properties), not `@internal` ones. */
  const checkMembers = (owner: ts.Type, use: string): void => {
    for (const member of owner.getProperties()) {
      const declaration = member.valueDeclaration ?? member.declarations?.[0];
      if (!declaration || !ours(declaration)) continue;
      if (ts.getJSDocTags(declaration).some((tag) => tag.tagName.text === "internal")) continue;
      if (
        ts.getCombinedModifierFlags(declaration as ts.Declaration) &
        ts.ModifierFlags.NonPublicAccessibilityModifier
      )
        continue;
      if (member.name.startsWith("#")) continue;
      const type = checker.getNonNullableType(checker.getTypeOfSymbol(member));
      if (type.getCallSignatures().length > 0) checkType(type, `${use}.${member.name}`);
    }
  };

  for (const symbol of roots) {
    const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0];
    if (!declaration) continue;
    if (symbol.flags & ts.SymbolFlags.Function) {
      const type = checker.getTypeOfSymbol(symbol);
      for (const signature of type.getCallSignatures()) checkSignature(signature, symbol.name);
    }
    if (symbol.flags & ts.SymbolFlags.Class) {
      const classType = checker.getTypeOfSymbol(symbol);
      for (const signature of classType.getConstructSignatures())
        checkSignature(signature, `new ${symbol.name}`);
      checkMembers(classType, symbol.name);
      checkMembers(checker.getDeclaredTypeOfSymbol(symbol), symbol.name);
    }
    if (symbol.flags & ts.SymbolFlags.TypeAlias) {
      // A callback type (a handler a host writes): its parameters are what the host's function takes.
      const type = checker.getDeclaredTypeOfSymbol(symbol);
      for (const signature of type.getCallSignatures()) checkSignature(signature, symbol.name);
    }
    if (symbol.flags & ts.SymbolFlags.Interface) {
      checkMembers(checker.getDeclaredTypeOfSymbol(symbol), symbol.name);
    }
  }
  return { names, unnameable: [...problems].sort() };
}
