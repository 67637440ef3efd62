; Symbols of a JavaScript file (see rust.scm for the conventions). `export`
; joins its declaration through the `export_statement` wrapper (languages.rs).

(class_body (method_definition name: (_) @name) @definition.method)

(class_body
  (field_definition
    property: (property_identifier) @name
    value: [(arrow_function) (function_expression)]) @definition.method)

([
  (class_declaration name: (identifier) @name)
  (class name: (identifier) @name)
] @definition.class (#set! container))

[
  (function_declaration name: (identifier) @name)
  (generator_function_declaration name: (identifier) @name)
] @definition.function

([(lexical_declaration (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)]))
  (variable_declaration (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)]))] @definition.function)

; CommonJS: `module.exports.name = function …` and `exports.name = (…) => …`.
(program
  (expression_statement
    (assignment_expression
      left: [(identifier) @name (member_expression property: (property_identifier) @name)]
      right: [(arrow_function) (function_expression)])) @definition.function)

(program
  (lexical_declaration kind: "const"
    (variable_declarator name: (identifier) @name)) @definition.const)

(program
  (export_statement
    (lexical_declaration kind: "const"
      (variable_declarator name: (identifier) @name)) @definition.const))

; The class a class extends.
([
  (class_declaration (class_heritage (_) @super))
  (class (class_heritage (_) @super))
] @definition.class)

; A class's fields, declared in its chunk.
(class_body (field_definition property: (_) @declared_name) @declared.field)

; Instance fields assigned in the constructor: `this.count = 0`.
((class_body (method_definition name: (property_identifier) @init body: (statement_block
  (expression_statement (assignment_expression
    left: (member_expression object: (this) property: (property_identifier) @declared_name))) @declared.field)))
  (#eq? @init "constructor")
  (#set! instance))
