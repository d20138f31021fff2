/**
 * Route schemas compiled on first use instead of at boot. Fastify compiles every route's
 * validators and response serializers when the app becomes ready: for this API about two seconds
 * of CPU (fast-json-stringify builds an Ajv of its own for every response schema with a union),
 * paid by every process that builds the app — each test file, each instance started. A route
 * compiles what it needs on its first request instead, and `compileAll()` compiles whatever has
 * not been yet: `serve` calls it before listening when SCHEMAS_AT_START=compile (the first
 * requests are not slowed, and a schema that cannot compile stops the start, not a request), and a
 * test calls it so every route's schemas are proved to compile.
 */
type Compiled = ((...args: unknown[]) => unknown) & { errors?: unknown; schemaEnv?: unknown };
type RouteCompiler = (route: unknown) => Compiled;
type CompilerFactory = (externalSchemas: unknown, options: unknown) => RouteCompiler;

/** A validator's schema and the request part it checks (the part kept in the key so a compiler that treated parts apart, e.g. coercing only query strings, would still be right). */
const validatorKey = (route: unknown): string => {
  const { schema, httpPart } = route as { schema: unknown; httpPart?: string };
  return `${httpPart ?? ''}:${JSON.stringify(schema)}`;
};

export class LazySchemas {
  private readonly pending = new Set<() => void>();

  /**
   * A compiler factory whose route compilers each hand `wrap` a thunk: the route's compiled
   * function, built on its first call and then kept (and off the pending list).
   */
  private deferred(base: CompilerFactory, wrap: (compiled: () => Compiled) => Compiled, keyOf?: (route: unknown) => string): CompilerFactory {
    return (externalSchemas, options) => {
      const build = base(externalSchemas, options);
      // Routes whose schemas are the same (keyOf) share one compiled function: built once, kept once.
      const shared = new Map<string, Compiled>();
      return (route) => {
        const key = keyOf?.(route);
        const known = key === undefined ? undefined : shared.get(key);
        if (known) return known;
        let inner: Compiled | undefined;
        const compile = () => (inner ??= build(route));
        this.pending.add(compile);
        const made = wrap(() => {
          if (inner) return inner;
          this.pending.delete(compile);
          return compile();
        });
        if (key !== undefined) shared.set(key, made);
        return made;
      };
    };
  }

  /**
   * Wraps a validator compiler factory (Fastify's `buildValidator`). Validators of equal schemas
   * for the same part of the request are compiled once and shared, as serializers are: the 170
   * validators of this API have 62 distinct schemas (the same params, ids and pages on many
   * routes), and compiling each with Ajv left about 19 MB of garbage that the idle process kept
   * resident until V8's memory reducer ran (#33: rss_idle_prod_mb). A validator's `errors` are
   * read right after its call, in the same turn, so routes sharing one never see each other's.
   */
  validators(base: CompilerFactory): CompilerFactory {
    return this.deferred(base, (compiled) => {
      const lazy: Compiled = (data, ctx) => {
        const v = compiled();
        const ok = v(data, ctx);
        lazy.errors = v.errors;
        return ok;
      };
      // Fastify passes the parent object (so Ajv may coerce or default a root value) only to a
      // validator with a schemaEnv; before compiling it cannot be known, and passing it always is harmless.
      lazy.schemaEnv = true;
      return lazy;
    }, validatorKey);
  }

  /** Wraps a serializer compiler factory (Fastify's `buildSerializer`). */
  serializers(base: CompilerFactory): CompilerFactory {
    // A serializer is its schema's alone (fast-json-stringify reads nothing else of the route), and
    // many are the same: every route's error envelopes, one per status. Compiled apart, the 477
    // serializers of this API held about 10 MB of generated source alone, with their code and an
    // Ajv each on top: most of the idle process's heap (#33: rss_idle_prod_mb).
    return this.deferred(base, (compiled) => (data: unknown) => compiled()(data), (route) => JSON.stringify((route as { schema: unknown }).schema));
  }

  /** Compiles every schema not compiled yet; the number compiled. */
  compileAll(): number {
    const all = [...this.pending];
    this.pending.clear();
    for (const compile of all) compile();
    return all.length;
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Compiles every route schema not compiled yet (LazySchemas.compileAll); the number compiled. */
    compileSchemas(): number;
  }
}
