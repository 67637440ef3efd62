; Symbols of a Python file (see rust.scm for the conventions). Decorators join
; their definition through the `decorated_definition` wrapper (languages.rs).

(class_definition
  body: (block (function_definition name: (identifier) @name) @definition.method))

(class_definition
  body: (block (decorated_definition
    definition: (function_definition name: (identifier) @name) @definition.method)))

(function_definition name: (identifier) @name) @definition.function

((class_definition name: (identifier) @name) @definition.class (#set! container))

; Module-level constants, by the UPPER_CASE convention; other assignments are
; module code and stay between symbols.
((module (expression_statement (assignment left: (identifier) @name)) @definition.const)
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))

; Docstrings: matches without `@name` only attach `@doc` to their definition.
(function_definition
  body: (block . (expression_statement (string) @doc))) @definition.function

(class_definition
  body: (block . (expression_statement (string) @doc))) @definition.class

; The module docstring: a `@doc` without a definition documents the file.
(module . (expression_statement (string) @doc))

; Base classes (keyword arguments such as `metaclass=` are not bases).
(class_definition
  superclasses: (argument_list [(identifier) (attribute) (subscript)] @super)) @definition.class

; A class's attributes (`x: int = 0`, `MAX = 3`), declared in its chunk.
(class_definition body: (block
  (expression_statement (assignment left: (identifier) @declared_name)) @declared.field))

; Instance attributes: `self.name = …` in a method's body, directly or in
; the body of an `if`, `for`, `while`, `with` or `try` (not deeper, nor in an
; `else` or `except` alone: each level costs the query's compile a few ms,
; once per process that chunks Python). The class around the method declares
; each once, where it is first assigned (`__init__`, usually); a function
; outside a class declares nothing.
((function_definition body: (block
    (expression_statement (assignment
      left: (attribute object: (identifier) @self attribute: (identifier) @declared_name)) @declared.field)))
  (#eq? @self "self")
  (#set! instance))

((function_definition body: (block (_ (block
    (expression_statement (assignment
      left: (attribute object: (identifier) @self attribute: (identifier) @declared_name)) @declared.field)))))
  (#eq? @self "self")
  (#set! instance))
