; Symbols of a C++ file (see rust.scm for the conventions). Templates join
; their declaration through the `template_declaration` wrapper (languages.rs).
; A method defined outside its class (`bool Bucket::take() {…}`) captures the
; class as `@scope`, so it is named `Bucket::take` like an inline method.

(field_declaration_list (function_definition declarator: [
  (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)
  (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
  (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
]) @definition.method)

(function_definition declarator: [
  (function_declarator declarator: (qualified_identifier scope: (_) @scope name: (_) @name))
  (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @scope name: (_) @name)))
  (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) @scope name: (_) @name)))
]) @definition.method

(function_definition declarator: [
  (function_declarator declarator: [(identifier) (operator_name)] @name)
  (pointer_declarator declarator: (function_declarator declarator: [(identifier) (operator_name)] @name))
  (reference_declarator (function_declarator declarator: [(identifier) (operator_name)] @name))
]) @definition.function

((namespace_definition name: (_) @name) @definition.module (#set! container))
((class_specifier name: (_) @name body: (_)) @definition.class (#set! container))
((struct_specifier name: (_) @name body: (_)) @definition.struct (#set! container))
((union_specifier name: (_) @name body: (_)) @definition.union (#set! container))
(enum_specifier name: (_) @name body: (_)) @definition.enum

(type_definition declarator: (type_identifier) @name) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type
(concept_definition name: (identifier) @name) @definition.type

(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; Prototypes and globals at namespace or file level.
([(translation_unit (declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.function)
  (declaration_list (declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.function)])

([(translation_unit (declaration declarator: [
    (identifier) @name
    (init_declarator declarator: (identifier) @name)
  ]) @definition.var)
  (declaration_list (declaration declarator: [
    (identifier) @name
    (init_declarator declarator: (identifier) @name)
  ]) @definition.var)])

; Base classes.
(class_specifier
  (base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @super)) @definition.class
(struct_specifier
  (base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @super)) @definition.struct
