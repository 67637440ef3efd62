; Symbols of a TypeScript or TSX file (see rust.scm for the conventions).
; `export` and `declare` join their declaration through the `export_statement`
; and `ambient_declaration` wrappers (languages.rs). Interface members, method
; overloads and abstract signatures stay in their container's chunk.

(class_body (method_definition name: (_) @name) @definition.method)

(class_body
  (public_field_definition
    name: (property_identifier) @name
    value: [(arrow_function) (function_expression)]) @definition.method)

([
  (class_declaration name: (type_identifier) @name)
  (abstract_class_declaration name: (type_identifier) @name)
  (class name: (type_identifier) @name)
] @definition.class (#set! container))

((interface_declaration name: (type_identifier) @name) @definition.interface)

([
  (internal_module name: (_) @name)
  (module name: (_) @name)
] @definition.module (#set! container))

(enum_declaration name: (identifier) @name) @definition.enum

(type_alias_declaration name: (type_identifier) @name) @definition.type

[
  (function_declaration name: (identifier) @name)
  (generator_function_declaration name: (identifier) @name)
  (function_signature name: (identifier) @name)
] @definition.function

([(lexical_declaration (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)]))
  (variable_declaration (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)]))] @definition.function)

(program
  (lexical_declaration kind: "const"
    (variable_declarator name: (identifier) @name)) @definition.const)

(program
  (export_statement
    (lexical_declaration kind: "const"
      (variable_declarator name: (identifier) @name)) @definition.const))

(internal_module
  body: (statement_block
    (lexical_declaration kind: "const"
      (variable_declarator name: (identifier) @name)) @definition.const))

(internal_module
  body: (statement_block
    (export_statement
      (lexical_declaration kind: "const"
        (variable_declarator name: (identifier) @name)) @definition.const)))

; Supertypes: `extends` and `implements`.
([
  (class_declaration (class_heritage (extends_clause value: (_) @super)))
  (abstract_class_declaration (class_heritage (extends_clause value: (_) @super)))
  (class (class_heritage (extends_clause value: (_) @super)))
] @definition.class)

([
  (class_declaration (class_heritage (implements_clause (_) @super)))
  (abstract_class_declaration (class_heritage (implements_clause (_) @super)))
  (class (class_heritage (implements_clause (_) @super)))
] @definition.class)

(interface_declaration (extends_type_clause type: (_) @super)) @definition.interface

; Members declared in their container's chunk: an interface's properties and
; method signatures, a class's fields, overloads and abstract methods, an
; enum's members.
(interface_declaration body: (interface_body [
  (property_signature name: (_) @declared_name) @declared.field
  (method_signature name: (_) @declared_name) @declared.method
]))
(class_body [
  (public_field_definition name: (_) @declared_name) @declared.field
  (method_signature name: (_) @declared_name) @declared.method
  (abstract_method_signature name: (_) @declared_name) @declared.method
])
(enum_declaration body: (enum_body [
  (property_identifier) @declared_name @declared.variant
  (enum_assignment name: (_) @declared_name) @declared.variant
]))

; Instance fields assigned in the constructor: `this.count = 0`.
((class_body (method_definition name: (property_identifier) @init body: (statement_block
  (expression_statement (assignment_expression
    left: (member_expression object: (this) property: (property_identifier) @declared_name))) @declared.field)))
  (#eq? @init "constructor")
  (#set! instance))
