<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="pt_BR">
<context>
    <name>AmountEdit</name>
    <message>
        <source>At most {amount} here.</source>
        <translation>No máximo {amount} aqui.</translation>
    </message>
    <message>
        <source>The largest amount the terminal takes is {amount}.</source>
        <translation>O maior valor que o terminal aceita é {amount}.</translation>
    </message>
    <message>
        <source>That is not an amount in reais (example: {example}).</source>
        <translation>Isso não é um valor em reais (exemplo: {example}).</translation>
    </message>
    <message>
        <source>A charge amount cannot be negative.</source>
        <translation>O valor de uma cobrança não pode ser negativo.</translation>
    </message>
</context>
<context>
    <name>ChallengeView</name>
    <message>
        <source>Bank confirmation</source>
        <translation>Confirmação do banco</translation>
    </message>
    <message>
        <source>Hand this to the customer: the bank asks for a confirmation</source>
        <translation>Entregue ao cliente: o banco pede uma confirmação</translation>
    </message>
    <message>
        <source>Cancel the confirmation</source>
        <translation>Cancelar a confirmação</translation>
    </message>
</context>
<context>
    <name>ChargeForm</name>
    <message>
        <source>Amount</source>
        <translation>Valor</translation>
    </message>
    <message>
        <source>Installments</source>
        <translation>Parcelas</translation>
    </message>
    <message>
        <source>On the card statement (optional)</source>
        <translation>Na fatura do cartão (opcional)</translation>
    </message>
    <message>
        <source>&amp;Late capture (authorize now, capture later)</source>
        <translation>&amp;Captura posterior (autorizar agora, capturar depois)</translation>
    </message>
    <message>
        <source>Sale</source>
        <translation>Venda</translation>
    </message>
    <message>
        <source>&amp;Amount</source>
        <translation>&amp;Valor</translation>
    </message>
    <message>
        <source>&amp;Installments</source>
        <translation>&amp;Parcelas</translation>
    </message>
    <message>
        <source>&amp;Descriptor</source>
        <translation>&amp;Descritor</translation>
    </message>
    <message>
        <source>CPF or CNPJ</source>
        <translation>CPF ou CNPJ</translation>
    </message>
    <message>
        <source>Customer</source>
        <translation>Cliente</translation>
    </message>
    <message>
        <source>&amp;Name</source>
        <translation>&amp;Nome</translation>
    </message>
    <message>
        <source>&amp;E-mail</source>
        <translation>&amp;E-mail</translation>
    </message>
    <message>
        <source>Card &amp;holder is the customer</source>
        <translation>Titular do cartão = c&amp;liente</translation>
    </message>
    <message>
        <source>Fill the card&apos;s holder name and CPF/CNPJ from the customer (untick when someone else&apos;s card pays).</source>
        <translation>Preenche o nome e o CPF/CNPJ do titular do cartão com os do cliente (desmarque quando o cartão for de outra pessoa).</translation>
    </message>
    <message>
        <source>optional</source>
        <translation>opcional</translation>
    </message>
    <message>
        <source>CP&amp;F/CNPJ</source>
        <translation>CP&amp;F/CNPJ</translation>
    </message>
    <message>
        <source>&amp;Phone</source>
        <translation>&amp;Telefone</translation>
    </message>
    <message>
        <source>Billing address</source>
        <translation>Endereço de cobrança</translation>
    </message>
    <message>
        <source>CEP</source>
        <translation>CEP</translation>
    </message>
    <message>
        <source>Street</source>
        <translation>Rua</translation>
    </message>
    <message>
        <source>Complement</source>
        <translation>Complemento</translation>
    </message>
    <message>
        <source>Number</source>
        <translation>Número</translation>
    </message>
    <message>
        <source>Neighborhood</source>
        <translation>Bairro</translation>
    </message>
    <message>
        <source>UF</source>
        <translation>UF</translation>
    </message>
    <message>
        <source>City</source>
        <translation>Cidade</translation>
    </message>
    <message>
        <source>(11) 98765-4321 — optional</source>
        <translation>(11) 98765-4321 — opcional</translation>
    </message>
    <message>
        <source>Large amount: check it with the customer before charging.</source>
        <translation>Valor alto: confira com o cliente antes de cobrar.</translation>
    </message>
    <message>
        <source>single payment</source>
        <translation>à vista</translation>
    </message>
    <message>
        <source>{split} (interest-free)</source>
        <translation>{split} (sem juros)</translation>
    </message>
    <message>
        <source>Installments of at least {minimum}: this amount is charged in a single payment.</source>
        <translation>Parcelas de no mínimo {minimum}: este valor só pode ser cobrado à vista.</translation>
    </message>
    <message>
        <source>Installments of at least {minimum}: this amount takes at most {n}x.</source>
        <translation>Parcelas de no mínimo {minimum}: este valor aceita no máximo {n}x.</translation>
    </message>
    <message>
        <source>Type the amount.</source>
        <translation>Digite o valor.</translation>
    </message>
    <message>
        <source>The descriptor takes only letters without accents, digits and spaces.</source>
        <translation>O descritor aceita só letras sem acento, dígitos e espaços.</translation>
    </message>
    <message>
        <source>Type the customer&apos;s name.</source>
        <translation>Digite o nome do cliente.</translation>
    </message>
    <message>
        <source>The customer&apos;s name takes only letters, digits, spaces and &apos;&amp;&apos;.</source>
        <translation>O nome do cliente aceita só letras, dígitos, espaços e &apos;&amp;&apos;.</translation>
    </message>
    <message>
        <source>Type a valid e-mail address (name@example.com).</source>
        <translation>Digite um e-mail válido (nome@exemplo.com).</translation>
    </message>
    <message>
        <source>Type the customer&apos;s CPF or CNPJ.</source>
        <translation>Digite o CPF ou CNPJ do cliente.</translation>
    </message>
    <message>
        <source>The CPF/CNPJ check digits do not match; check the number.</source>
        <translation>Os dígitos verificadores do CPF/CNPJ não conferem; confira o número.</translation>
    </message>
    <message>
        <source>A CPF has 11 digits and a CNPJ 14; this one has {n}.</source>
        <translation>Um CPF tem 11 dígitos e um CNPJ, 14; este tem {n}.</translation>
    </message>
    <message>
        <source>This service does not take a CNPJ as the customer&apos;s document: type the buyer&apos;s CPF.</source>
        <translation>Este serviço não aceita CNPJ como documento do cliente: digite o CPF do comprador.</translation>
    </message>
    <message>
        <source>Type the customer&apos;s phone, e.g. (11) 98765-4321.</source>
        <translation>Digite o telefone do cliente, por exemplo (11) 98765-4321.</translation>
    </message>
    <message>
        <source>Type the phone with its area code: (11) 98765-4321 for a mobile, (11) 3333-4444 for a landline.</source>
        <translation>Digite o telefone com o DDD: (11) 98765-4321 para celular, (11) 3333-4444 para fixo.</translation>
    </message>
    <message>
        <source>Type the CEP as 8 digits, e.g. 01310-100.</source>
        <translation>Digite o CEP com 8 dígitos, por exemplo 01310-100.</translation>
    </message>
    <message>
        <source>street</source>
        <translation>rua</translation>
    </message>
    <message>
        <source>number</source>
        <translation>número</translation>
    </message>
    <message>
        <source>neighborhood</source>
        <translation>bairro</translation>
    </message>
    <message>
        <source>city</source>
        <translation>cidade</translation>
    </message>
    <message>
        <source>The billing address needs: {fields}.</source>
        <translation>Falta no endereço de cobrança: {fields}.</translation>
    </message>
    <message>
        <source>Choose the state (UF).</source>
        <translation>Escolha o estado (UF).</translation>
    </message>
</context>
<context>
    <name>ChargeHistoryModel</name>
    <message>
        <source>Not charged — 3DS authentication refused</source>
        <translation>Não cobrada — autenticação 3DS recusada</translation>
    </message>
    <message>
        <source>Not charged</source>
        <translation>Não cobrada</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>Criada</translation>
    </message>
    <message>
        <source>Charge</source>
        <translation>Cobrança</translation>
    </message>
    <message>
        <source>Amount</source>
        <translation>Valor</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Situação</translation>
    </message>
    <message>
        <source>Refunded</source>
        <translation>Estornado</translation>
    </message>
    <message>
        <source>Payment method</source>
        <translation>Meio de pagamento</translation>
    </message>
    <message>
        <source>Customer</source>
        <translation>Cliente</translation>
    </message>
    <message>
        <source>3DS</source>
        <translation>3DS</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>Ambiente</translation>
    </message>
    <message>
        <source>Service id: {id}</source>
        <translation>Id no serviço: {id}</translation>
    </message>
</context>
<context>
    <name>ChargeScreen</name>
    <message>
        <source>The part of the sale the next card pays (split a sale across cards)</source>
        <translation>A parte da venda que o próximo cartão paga (para dividir a venda entre cartões)</translation>
    </message>
    <message>
        <source>&amp;Remove card</source>
        <translation>&amp;Remover cartão</translation>
    </message>
    <message>
        <source>Loading the card form…</source>
        <translation>Carregando o formulário do cartão…</translation>
    </message>
    <message>
        <source>Cards</source>
        <translation>Cartões</translation>
    </message>
    <message>
        <source>Amount on the next card</source>
        <translation>Valor no próximo cartão</translation>
    </message>
    <message>
        <source>Charging…</source>
        <translation>Cobrando…</translation>
    </message>
    <message>
        <source>C&amp;harge {amount}</source>
        <translation>Co&amp;brar {amount}</translation>
    </message>
    <message>
        <source>The cards add up to more than the sale.</source>
        <translation>Os cartões somam mais do que a venda.</translation>
    </message>
    <message>
        <source>The card form is not ready yet.</source>
        <translation>O formulário do cartão ainda não está pronto.</translation>
    </message>
    <message>
        <source>In {n}x each card must pay at least {amount}.</source>
        <translation>Em {n}x, cada cartão deve pagar no mínimo {amount}.</translation>
    </message>
    <message>
        <source>The next card can pay at most {amount}.</source>
        <translation>O próximo cartão pode pagar no máximo {amount}.</translation>
    </message>
    <message>
        <source>Checking the card…</source>
        <translation>Verificando o cartão…</translation>
    </message>
    <message>
        <source>{brand} •••• {last4} removed.</source>
        <translation>{brand} •••• {last4} removido.</translation>
    </message>
    <message>
        <source>The sale is already covered by the cards above.</source>
        <translation>A venda já está coberta pelos cartões acima.</translation>
    </message>
    <message>
        <source>{brand} •••• {last4} added.</source>
        <translation>{brand} •••• {last4} adicionado.</translation>
    </message>
    <message>
        <source>The card was not accepted: {why}</source>
        <translation>O cartão não foi aceito: {why}</translation>
    </message>
    <message>
        <source>Correct the fields marked in the card form.</source>
        <translation>Corrija os campos marcados no formulário do cartão.</translation>
    </message>
    <message>
        <source>Nothing was charged; press Charge again once the card is right.</source>
        <translation>Nada foi cobrado; pressione Cobrar de novo quando o cartão estiver certo.</translation>
    </message>
    <message>
        <source>Type the card, then Charge (Ctrl+Enter). To split the sale, set the amount on this card and add it with the card form&apos;s button first.</source>
        <translation>Digite o cartão e cobre (Ctrl+Enter). Para dividir a venda, defina o valor neste cartão e adicione-o antes com o botão do formulário do cartão.</translation>
    </message>
    <message>
        <source>The card form is unavailable: {why}</source>
        <translation>O formulário do cartão está indisponível: {why}</translation>
    </message>
    <message>
        <source>Authenticating…</source>
        <translation>Autenticando…</translation>
    </message>
    <message>
        <source>Waiting for the customer at the bank…</source>
        <translation>Aguardando o cliente no banco…</translation>
    </message>
    <message>
        <source>Every card would fail the same way: turn 3DS off, or let a card be charged without it, in Settings.</source>
        <translation>Todo cartão falharia do mesmo jeito: desligue o 3DS, ou permita cobrar o cartão sem ele, em Configurações.</translation>
    </message>
    <message>
        <source>This service does not take a CNPJ as the customer&apos;s document: charge again with the buyer&apos;s CPF.</source>
        <translation>Este serviço não aceita CNPJ como documento do cliente: cobre de novo com o CPF do comprador.</translation>
    </message>
    <message>
        <source>Capture</source>
        <translation>Capturar</translation>
    </message>
    <message>
        <source>Charge {amount} to the card now?</source>
        <translation>Cobrar {amount} no cartão agora?</translation>
    </message>
    <message>
        <source>Capture {amount}</source>
        <translation>Capturar {amount}</translation>
    </message>
    <message>
        <source>Capturing…</source>
        <translation>Capturando…</translation>
    </message>
    <message>
        <source>The capture failed: {why}</source>
        <translation>A captura falhou: {why}</translation>
    </message>
    <message>
        <source>A QR is still waiting</source>
        <translation>Um QR ainda está aguardando</translation>
    </message>
    <message>
        <source>The {kind} QR of {amount} is still waiting for the customer&apos;s payment.</source>
        <translation>O QR {kind} de {amount} ainda está aguardando o pagamento do cliente.</translation>
    </message>
    <message>
        <source>&amp;Keep the QR on screen</source>
        <translation>&amp;Manter o QR na tela</translation>
    </message>
    <message>
        <source>Cancel it before the next sale, so that it cannot be paid as well.</source>
        <translation>Cancele-o antes da próxima venda, para que ele não possa ser pago também.</translation>
    </message>
    <message>
        <source>&amp;Cancel the QR and start a new sale</source>
        <translation>&amp;Cancelar o QR e iniciar nova venda</translation>
    </message>
    <message>
        <source>&amp;Start the new sale</source>
        <translation>&amp;Iniciar a nova venda</translation>
    </message>
    <message>
        <source>This service does not cancel an unpaid QR: it stays payable until it expires. If the customer pays it, the payment will be announced here; refund it from the History if the sale was paid another way.</source>
        <translation>Este serviço não cancela um QR não pago: ele continua pagável até expirar. Se o cliente pagá-lo, o pagamento será avisado aqui; estorne-o pelo Histórico se a venda tiver sido paga de outra forma.</translation>
    </message>
    <message>
        <source>This service does not cancel an unpaid QR: it stays payable until it expires at {time}. If the customer pays it, the payment will be announced here; refund it from the History if the sale was paid another way.</source>
        <translation>Este serviço não cancela um QR não pago: ele continua pagável até expirar, às {time}. Se o cliente pagá-lo, o pagamento será avisado aqui; estorne-o pelo Histórico se a venda tiver sido paga de outra forma.</translation>
    </message>
    <message>
        <source>Captured. The store does not answer just now, so this screen still shows the charge as it was; the history shows it once the store answers.</source>
        <translation>Capturado. O banco de dados não responde agora, então esta tela ainda mostra a cobrança como estava; o histórico a mostra assim que ele responder.</translation>
    </message>
    <message>
        <source>PIX: Charge shows a QR for the whole amount. The customer pays it in any bank&apos;s app within {minutes} minutes.</source>
        <translation>PIX: Cobrar mostra um QR do valor total. O cliente paga pelo app de qualquer banco em até {minutes} minutos.</translation>
    </message>
    <message>
        <source>PicPay: Charge shows a QR for the whole amount. The customer pays it in the PicPay app.</source>
        <translation>PicPay: Cobrar mostra um QR do valor total. O cliente paga pelo app PicPay.</translation>
    </message>
    <message>
        <source>The QR was not cancelled: {why}</source>
        <translation>O QR não foi cancelado: {why}</translation>
    </message>
    <message>
        <source>The simulated payment failed: {why}</source>
        <translation>O pagamento simulado falhou: {why}</translation>
    </message>
</context>
<context>
    <name>CommandLine</name>
    <message>
        <source>open the terminal window (the default)</source>
        <translation>abre a janela do terminal (o padrão)</translation>
    </message>
    <message>
        <source>run the built-in sandbox service standalone</source>
        <translation>executa o serviço sandbox embutido sozinho</translation>
    </message>
    <message>
        <source>run the webhook inbox without the window</source>
        <translation>executa a caixa de entrada de notificações sem a janela</translation>
    </message>
    <message>
        <source>export stored webhook deliveries</source>
        <translation>exporta as notificações (webhooks) guardadas</translation>
    </message>
    <message>
        <source>the shared PostgreSQL store: its password in the keychain, a check, moving a shop in</source>
        <translation>o banco de dados compartilhado PostgreSQL: sua senha no chaveiro, uma verificação, a mudança de uma loja para ele</translation>
    </message>
    <message>
        <source>check the connection to the service without charging (exit 0: the terminal can charge)</source>
        <translation>verifica a conexão com o serviço sem cobrar nada (código de saída 0: o terminal pode cobrar)</translation>
    </message>
    <message>
        <source>A card-payment terminal for a small shop (Checkout Transparente).</source>
        <translation>Um terminal de pagamento com cartão para uma pequena loja (Checkout Transparente).</translation>
    </message>
    <message>
        <source>show the version and exit</source>
        <translation>mostra a versão e sai</translation>
    </message>
    <message>
        <source>keep settings, store and logs under DIR (default: $CHECKOUT_DESKTOP_HOME or the platform&apos;s folders)</source>
        <translation>guarda configurações, banco de dados e registros (logs) na PASTA (padrão: $CHECKOUT_DESKTOP_HOME ou as pastas do sistema)</translation>
    </message>
    <message>
        <source>the shop&apos;s shared PostgreSQL store, {url} (no password: it is kept in the OS keychain, see `store password`); default: the embedded store in the data folder</source>
        <translation>o banco de dados compartilhado PostgreSQL da loja, {url} (sem senha: ela fica no chaveiro do sistema, veja `store password`); padrão: o banco embutido na pasta de dados</translation>
    </message>
    <message>
        <source>log debug detail</source>
        <translation>registra detalhes de depuração</translation>
    </message>
    <message>
        <source>--store is not supported by this command yet (it works with: {commands})</source>
        <translation>este comando ainda não aceita --store (funciona com: {commands})</translation>
    </message>
</context>
<context>
    <name>CredentialsPage</name>
    <message>
        <source>stored in the keychain; type to replace</source>
        <translation>guardado no chaveiro; digite para substituir</translation>
    </message>
    <message>
        <source>Credentials</source>
        <translation>Credenciais</translation>
    </message>
    <message>
        <source>From the merchant panel (Integrations → Checkout). The secret and the SDK token go to this computer&apos;s keychain, never to a file.</source>
        <translation>Do painel do lojista (Integrações → Checkout). O segredo e o token do SDK vão para o chaveiro deste computador, nunca para um arquivo.</translation>
    </message>
    <message>
        <source>Client id</source>
        <translation>Client id</translation>
    </message>
    <message>
        <source>Client secret</source>
        <translation>Client secret</translation>
    </message>
    <message>
        <source>Merchant CNPJ</source>
        <translation>CNPJ do lojista</translation>
    </message>
    <message>
        <source>Card SDK token</source>
        <translation>Token do SDK de cartão</translation>
    </message>
    <message>
        <source>Card SDK token kind</source>
        <translation>Tipo do token do SDK de cartão</translation>
    </message>
    <message>
        <source>The client id takes letters, digits, &apos;_&apos; and &apos;-&apos; only.</source>
        <translation>O client id aceita só letras, dígitos, &apos;_&apos; e &apos;-&apos;.</translation>
    </message>
    <message>
        <source>The client secret takes letters, digits and &apos;_&apos; only.</source>
        <translation>O client secret aceita só letras, dígitos e &apos;_&apos;.</translation>
    </message>
    <message>
        <source>The merchant CNPJ is not valid; check its 14 digits.</source>
        <translation>O CNPJ do lojista não é válido; confira os 14 dígitos.</translation>
    </message>
</context>
<context>
    <name>CustomerDisplay</name>
    <message>
        <source>Customer display</source>
        <translation>Tela do cliente</translation>
    </message>
    <message>
        <source>Welcome</source>
        <translation>Bem-vindo</translation>
    </message>
    <message>
        <source>Insert or type your card on the shop&apos;s terminal</source>
        <translation>Informe seu cartão no terminal da loja</translation>
    </message>
    <message>
        <source>Processing…</source>
        <translation>Processando…</translation>
    </message>
    <message>
        <source>Paid — thank you!</source>
        <translation>Pago — obrigado!</translation>
    </message>
    <message>
        <source>Not paid</source>
        <translation>Não pago</translation>
    </message>
    <message>
        <source>Scan the QR to pay</source>
        <translation>Leia o QR para pagar</translation>
    </message>
    <message>
        <source>The QR expired</source>
        <translation>O QR expirou</translation>
    </message>
    <message>
        <source>The QR was cancelled</source>
        <translation>O QR foi cancelado</translation>
    </message>
</context>
<context>
    <name>DayTotalsPanel</name>
    <message>
        <source>&amp;Today</source>
        <translation>&amp;Hoje</translation>
    </message>
    <message>
        <source>&amp;Print report</source>
        <translation>&amp;Imprimir relatório</translation>
    </message>
    <message>
        <source>Save report as P&amp;DF</source>
        <translation>Salvar relatório em P&amp;DF</translation>
    </message>
    <message>
        <source>Day</source>
        <translation>Dia</translation>
    </message>
    <message>
        <source>Summary</source>
        <translation>Resumo</translation>
    </message>
    <message>
        <source>Sales</source>
        <translation>Vendas</translation>
    </message>
    <message>
        <source>Gross</source>
        <translation>Bruto</translation>
    </message>
    <message>
        <source>Refunds</source>
        <translation>Estornos</translation>
    </message>
    <message>
        <source>Net</source>
        <translation>Líquido</translation>
    </message>
    <message>
        <source>Authorized, not captured</source>
        <translation>Autorizadas, não capturadas</translation>
    </message>
    <message>
        <source>Denied attempts</source>
        <translation>Tentativas negadas</translation>
    </message>
    <message>
        <source>Payments</source>
        <translation>Pagamentos</translation>
    </message>
    <message>
        <source>Amount</source>
        <translation>Valor</translation>
    </message>
    <message>
        <source>Brand or tender</source>
        <translation>Bandeira ou meio</translation>
    </message>
    <message>
        <source>Hour</source>
        <translation>Hora</translation>
    </message>
    <message>
        <source>By brand</source>
        <translation>Por bandeira</translation>
    </message>
    <message>
        <source>By hour</source>
        <translation>Por hora</translation>
    </message>
    <message>
        <source>{count} · {amount}</source>
        <translation>{count} · {amount}</translation>
    </message>
    <message>
        <source>Sales report for {day}</source>
        <translation>Relatório de vendas de {day}</translation>
    </message>
    <message>
        <source>Figure</source>
        <translation>Item</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>Valor</translation>
    </message>
    <message>
        <source>the report could not be written to {path}</source>
        <translation>não foi possível gravar o relatório em {path}</translation>
    </message>
    <message>
        <source>sales-{day}.pdf</source>
        <translation>vendas-{day}.pdf</translation>
    </message>
    <message>
        <source>Save report</source>
        <translation>Salvar relatório</translation>
    </message>
    <message>
        <source>The report could not be saved: {why}</source>
        <translation>Não foi possível salvar o relatório: {why}</translation>
    </message>
</context>
<context>
    <name>Doctor</name>
    <message>
        <source>Environment</source>
        <translation>Ambiente</translation>
    </message>
    <message>
        <source>Keychain</source>
        <translation>Chaveiro do sistema</translation>
    </message>
    <message>
        <source>Access token</source>
        <translation>Token de acesso</translation>
    </message>
    <message>
        <source>Charge queries</source>
        <translation>Consultas de cobrança</translation>
    </message>
    <message>
        <source>Card form service</source>
        <translation>Serviço do formulário de cartão</translation>
    </message>
    <message>
        <source>Notification address</source>
        <translation>Endereço de notificações</translation>
    </message>
    <message>
        <source>Test notification</source>
        <translation>Notificação de teste</translation>
    </message>
    <message>
        <source>“{profile}” at {url}</source>
        <translation>“{profile}” em {url}</translation>
    </message>
    <message>
        <source>“{profile}” has no service address; fill it in Settings</source>
        <translation>“{profile}” não tem o endereço do serviço; preencha em Configurações</translation>
    </message>
    <message>
        <source>“{profile}” has no client id; copy it from the merchant panel into Settings</source>
        <translation>“{profile}” não tem o client id; copie-o do painel do lojista para Configurações</translation>
    </message>
    <message>
        <source>“{profile}” has no merchant CNPJ; the card form needs it</source>
        <translation>“{profile}” não tem o CNPJ do lojista; o formulário de cartão precisa dele</translation>
    </message>
    <message>
        <source>the service address {url} is not an https:// address</source>
        <translation>o endereço do serviço {url} não é um endereço https://</translation>
    </message>
    <message>
        <source>the built-in sandbox did not start</source>
        <translation>o sandbox embutido não iniciou</translation>
    </message>
    <message>
        <source>every secret this environment needs is there</source>
        <translation>todos os segredos de que este ambiente precisa estão lá</translation>
    </message>
    <message>
        <source>not needed: the built-in sandbox uses public test values</source>
        <translation>não é preciso: o sandbox embutido usa valores de teste públicos</translation>
    </message>
    <message>
        <source>missing: {missing}; enter them in Settings → Credentials</source>
        <translation>faltando: {missing}; informe em Configurações → Credenciais</translation>
    </message>
    <message>
        <source>no usable keychain on this computer; install and unlock one (on Linux, GNOME Keyring or KWallet)</source>
        <translation>não há chaveiro utilizável neste computador; instale e desbloqueie um (no Linux, GNOME Keyring ou KWallet)</translation>
    </message>
    <message>
        <source>issued, valid for {seconds} s; permissions: {scopes}; reply fields: {fields}</source>
        <translation>emitido, válido por {seconds} s; permissões: {scopes}; campos da resposta: {fields}</translation>
    </message>
    <message>
        <source>issued, but for the merchant CNPJ {got}, not {expected}; check the client id</source>
        <translation>emitido, mas para o CNPJ {got}, não {expected}; confira o client id</translation>
    </message>
    <message>
        <source>{reason}</source>
        <translation>{reason}</translation>
    </message>
    <message>
        <source>the service did not answer within {seconds} s</source>
        <translation>o serviço não respondeu em {seconds} s</translation>
    </message>
    <message>
        <source>a charge that does not exist is answered with HTTP {http_code} (not found)</source>
        <translation>uma cobrança que não existe é respondida com HTTP {http_code} (não encontrada)</translation>
    </message>
    <message>
        <source>a charge that does not exist is answered with HTTP {http_code}, naming the charge as not found</source>
        <translation>uma cobrança que não existe é respondida com HTTP {http_code}, dizendo que a cobrança não foi encontrada</translation>
    </message>
    <message>
        <source>a query for a charge that does not exist got HTTP {http_code} without saying “not found”: a charge whose reply is lost cannot be settled by itself ({reason})</source>
        <translation>a consulta de uma cobrança que não existe recebeu HTTP {http_code} sem dizer “não encontrada”: uma cobrança cuja resposta se perder não se resolve sozinha ({reason})</translation>
    </message>
    <message>
        <source>the service refused the query&apos;s format (HTTP {http_code}): a charge whose reply is lost cannot be settled by asking ({reason})</source>
        <translation>o serviço recusou o formato da consulta (HTTP {http_code}): uma cobrança cuja resposta se perder não pode ser resolvida consultando ({reason})</translation>
    </message>
    <message>
        <source>the service answered with a charge for the new id {id}; ask support</source>
        <translation>o serviço respondeu com uma cobrança para o id novo {id}; fale com o suporte</translation>
    </message>
    <message>
        <source>needs the checks above</source>
        <translation>depende das verificações acima</translation>
    </message>
    <message>
        <source>{host} answers securely ({tls})</source>
        <translation>{host} responde com conexão segura ({tls})</translation>
    </message>
    <message>
        <source>this environment names no card form service</source>
        <translation>este ambiente não indica o serviço do formulário de cartão</translation>
    </message>
    <message>
        <source>the name {host} cannot be found ({error})</source>
        <translation>o nome {host} não foi encontrado ({error})</translation>
    </message>
    <message>
        <source>{host} cannot be reached ({error})</source>
        <translation>não foi possível alcançar {host} ({error})</translation>
    </message>
    <message>
        <source>{host} answered, but its secure connection failed ({error})</source>
        <translation>{host} respondeu, mas a conexão segura falhou ({error})</translation>
    </message>
    <message>
        <source>{host} did not answer within {seconds} s</source>
        <translation>{host} não respondeu em {seconds} s</translation>
    </message>
    <message>
        <source>{host} answered with another certificate than the terminal trusts</source>
        <translation>{host} respondeu com um certificado diferente do que o terminal confia</translation>
    </message>
    <message>
        <source>{url} follows the service&apos;s rules</source>
        <translation>{url} segue as regras do serviço</translation>
    </message>
    <message>
        <source>the built-in sandbox delivers straight to this computer ({url})</source>
        <translation>o sandbox embutido entrega direto neste computador ({url})</translation>
    </message>
    <message>
        <source>no public address: the service cannot send notifications; results are learned by asking the service (choose a tunnel in Settings)</source>
        <translation>sem endereço público: o serviço não consegue enviar notificações; os resultados são obtidos consultando o serviço (escolha um túnel em Configurações)</translation>
    </message>
    <message>
        <source>{url} breaks the service&apos;s rules: {rules}</source>
        <translation>{url} não segue as regras do serviço: {rules}</translation>
    </message>
    <message>
        <source>the tunnel has not given an address yet</source>
        <translation>o túnel ainda não informou um endereço</translation>
    </message>
    <message>
        <source>only on this computer: {reason}</source>
        <translation>só neste computador: {reason}</translation>
    </message>
    <message>
        <source>the terminal already running here accepted it through {url} (HTTP {http_code})</source>
        <translation>o terminal já aberto aqui a recebeu por {url} (HTTP {http_code})</translation>
    </message>
    <message>
        <source>port {port} is in use (is the terminal open?); the test needs a public address to go through</source>
        <translation>a porta {port} está em uso (o terminal está aberto?); o teste precisa de um endereço público para passar</translation>
    </message>
    <message>
        <source>no answer within {seconds} s</source>
        <translation>sem resposta em {seconds} s</translation>
    </message>
    <message>
        <source>not sent: the listener is not running</source>
        <translation>não enviada: o receptor não está funcionando</translation>
    </message>
    <message>
        <source>client secret</source>
        <translation>client secret</translation>
    </message>
    <message>
        <source>card SDK token</source>
        <translation>token do SDK de cartão</translation>
    </message>
    <message>
        <source>webhook token</source>
        <translation>token do webhook</translation>
    </message>
    <message>
        <source>a well-formed address</source>
        <translation>um endereço bem formado</translation>
    </message>
    <message>
        <source>https only</source>
        <translation>somente https</translation>
    </message>
    <message>
        <source>no query parameters</source>
        <translation>sem parâmetros de consulta</translation>
    </message>
    <message>
        <source>a host name, not an IPv4 address</source>
        <translation>um nome de host, não um endereço IPv4</translation>
    </message>
    <message>
        <source>the built-in sandbox delivers straight to this computer</source>
        <translation>o sandbox embutido entrega direto neste computador</translation>
    </message>
    <message>
        <source>answers</source>
        <translation>responde</translation>
    </message>
    <message>
        <source>{name} ({host}): {detail}</source>
        <translation>{name} ({host}): {detail}</translation>
    </message>
    <message>
        <source>This terminal cannot charge yet: fix what is marked ✘ above.</source>
        <translation>Este terminal ainda não pode cobrar: corrija o que está marcado com ✘ acima.</translation>
    </message>
    <message>
        <source>This terminal can charge; what is marked ⚠ or ✘ above still needs care.</source>
        <translation>Este terminal pode cobrar; o que está marcado com ⚠ ou ✘ acima ainda precisa de atenção.</translation>
    </message>
    <message>
        <source>This terminal can charge. Everything works.</source>
        <translation>Este terminal pode cobrar. Tudo funciona.</translation>
    </message>
    <message>
        <source>Connection check of “{profile}”</source>
        <translation>Verificação de conexão de “{profile}”</translation>
    </message>
    <message>
        <source>{mark} {check}: {detail}</source>
        <translation>{mark} {check}: {detail}</translation>
    </message>
</context>
<context>
    <name>DoctorCommand</name>
    <message>
        <source>check this profile instead of the active one (see Settings → Environment)</source>
        <translation>verifica este perfil em vez do ativo (veja Configurações → Ambiente)</translation>
    </message>
    <message>
        <source>read the API client secret from FILE instead of the keychain (owner-only file, chmod 600), to run without anyone at the keyboard</source>
        <translation>lê o segredo do cliente da API do ARQUIVO em vez do chaveiro (arquivo só do dono, chmod 600), para rodar sem ninguém ao teclado</translation>
    </message>
    <message>
        <source>read the webhook token from FILE instead of the keychain (owner-only file, chmod 600)</source>
        <translation>lê o token do webhook do ARQUIVO em vez do chaveiro (arquivo só do dono, chmod 600)</translation>
    </message>
    <message>
        <source>language of the report: pt_BR or en (default: the terminal&apos;s, from its settings or the system)</source>
        <translation>idioma do relatório: pt_BR ou en (padrão: o do terminal, das configurações ou do sistema)</translation>
    </message>
    <message>
        <source>do not store the learned &apos;not found&apos; shape in the profile</source>
        <translation>não guarda no perfil a forma de &apos;não encontrada&apos; aprendida</translation>
    </message>
</context>
<context>
    <name>EndAttemptDialog</name>
    <message>
        <source>End an unresolved charge</source>
        <translation>Encerrar uma cobrança sem resultado</translation>
    </message>
    <message>
        <source>e.g. checked in the merchant panel: no such charge</source>
        <translation>ex.: conferido no painel do lojista: essa cobrança não existe</translation>
    </message>
    <message>
        <source>Supervisor</source>
        <translation>Supervisor</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>Motivo</translation>
    </message>
    <message>
        <source>Supervisor PIN</source>
        <translation>PIN do supervisor</translation>
    </message>
    <message>
        <source>End the charge</source>
        <translation>Encerrar a cobrança</translation>
    </message>
    <message>
        <source>Type who is ending it.</source>
        <translation>Digite quem está encerrando.</translation>
    </message>
    <message>
        <source>Type why it is ended (it goes to the charge&apos;s timeline).</source>
        <translation>Digite o motivo (ele vai para o histórico da cobrança).</translation>
    </message>
    <message>
        <source>Wrong supervisor PIN.</source>
        <translation>PIN do supervisor incorreto.</translation>
    </message>
</context>
<context>
    <name>EnvironmentPage</name>
    <message>
        <source>Environment</source>
        <translation>Ambiente</translation>
    </message>
    <message>
        <source>Where charges go. The built-in sandbox needs no account: it plays the service on this computer, with test cards.</source>
        <translation>Para onde vão as cobranças. O sandbox embutido não precisa de conta: ele faz o papel do serviço neste computador, com cartões de teste.</translation>
    </message>
    <message>
        <source>System language</source>
        <translation>Idioma do sistema</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>&amp;Idioma</translation>
    </message>
    <message>
        <source>Runs on this computer; test cards only; nothing is charged.</source>
        <translation>Roda neste computador; só cartões de teste; nada é cobrado.</translation>
    </message>
    <message>
        <source>The service&apos;s own test environment; needs sandbox credentials.</source>
        <translation>O ambiente de testes do próprio serviço; precisa de credenciais de sandbox.</translation>
    </message>
    <message>
        <source>Real charges on real cards.</source>
        <translation>Cobranças reais em cartões reais.</translation>
    </message>
    <message>
        <source>A custom environment.</source>
        <translation>Um ambiente personalizado.</translation>
    </message>
</context>
<context>
    <name>EventDetail</name>
    <message>
        <source>Select an event to see its headers and body.</source>
        <translation>Selecione um evento para ver os cabeçalhos e o corpo.</translation>
    </message>
    <message>
        <source>Technical detail (headers and body as received)</source>
        <translation>Detalhes técnicos (cabeçalhos e corpo como chegaram)</translation>
    </message>
    <message>
        <source>Event #{id} received {at}</source>
        <translation>Evento nº {id} recebido em {at}</translation>
    </message>
    <message>
        <source>Why: {reason}</source>
        <translation>Motivo: {reason}</translation>
    </message>
    <message>
        <source>First delivery: event #{id}</source>
        <translation>Primeira entrega: evento nº {id}</translation>
    </message>
    <message>
        <source>Charge update: {outcome}</source>
        <translation>Atualização da cobrança: {outcome}</translation>
    </message>
    <message>
        <source>Headers</source>
        <translation>Cabeçalhos</translation>
    </message>
    <message>
        <source>Body</source>
        <translation>Corpo</translation>
    </message>
    <message>
        <source>Why, as recorded</source>
        <translation>Motivo, como registrado</translation>
    </message>
    <message>
        <source>Charge update, as recorded</source>
        <translation>Atualização da cobrança, como registrada</translation>
    </message>
    <message>
        <source>Accepted: stored; it did not change its charge (why below).</source>
        <translation>Aceita: guardada; não mudou a cobrança (o porquê está abaixo).</translation>
    </message>
    <message>
        <source>Accepted: stored, but its charge could not be updated with it (below).</source>
        <translation>Aceita: guardada, mas não foi possível atualizar a cobrança com ela (veja abaixo).</translation>
    </message>
    <message>
        <source>Accepted: stored; its charge was not made by this terminal.</source>
        <translation>Aceita: guardada; é de uma cobrança que este terminal não fez.</translation>
    </message>
    <message>
        <source>[not stored]</source>
        <translation>[não guardado]</translation>
    </message>
    <message>
        <source>[not stored: empty]</source>
        <translation>[não guardado: vazio]</translation>
    </message>
    <message>
        <source>[not stored: bare token]</source>
        <translation>[não guardado: token sem esquema]</translation>
    </message>
    <message>
        <source>[not stored: unrecognised scheme]</source>
        <translation>[não guardado: esquema desconhecido]</translation>
    </message>
    <message>
        <source>[not stored: {scheme} scheme]</source>
        <translation>[não guardado: esquema {scheme}]</translation>
    </message>
</context>
<context>
    <name>EventList</name>
    <message>
        <source>{status}: the customer&apos;s payment landed after the {kind} QR had ended; refund it if the sale was paid another way.</source>
        <translation>{status}: o pagamento do cliente chegou depois que o QR {kind} foi encerrado; estorne-o se a venda foi paga de outra forma.</translation>
    </message>
    <message>
        <source>{status}: the customer paid the {kind} QR.</source>
        <translation>{status}: o cliente pagou o QR {kind}.</translation>
    </message>
    <message>
        <source>{status}: the {kind} QR awaits the customer&apos;s payment.</source>
        <translation>{status}: o QR {kind} aguarda o pagamento do cliente.</translation>
    </message>
    <message>
        <source>{status}: the {kind} QR expired unpaid.</source>
        <translation>{status}: o QR {kind} expirou sem pagamento.</translation>
    </message>
    <message>
        <source>{status}: the {kind} QR was cancelled; nothing was paid.</source>
        <translation>{status}: o QR {kind} foi cancelado; nada foi pago.</translation>
    </message>
</context>
<context>
    <name>EventListModel</name>
    <message>
        <source>Received</source>
        <translation>Recebido</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>Tipo</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Situação</translation>
    </message>
    <message>
        <source>Charge</source>
        <translation>Cobrança</translation>
    </message>
    <message>
        <source>Delivery</source>
        <translation>Entrega</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>Motivo</translation>
    </message>
</context>
<context>
    <name>EventsCommand</name>
    <message>
        <source>only deliveries received at or after WHEN: an ISO 8601 date or time (UTC unless it carries an offset) or a span back from now such as 90m, 12h, 7d</source>
        <translation>só as notificações recebidas a partir de QUANDO: uma data ou hora ISO 8601 (UTC, a menos que traga o fuso) ou um intervalo para trás a partir de agora, como 90m, 12h, 7d</translation>
    </message>
    <message>
        <source>only deliveries received before WHEN</source>
        <translation>só as notificações recebidas antes de QUANDO</translation>
    </message>
    <message>
        <source>output format (jsonl)</source>
        <translation>formato de saída (jsonl)</translation>
    </message>
    <message>
        <source>event-type header or body type, e.g. TransactionUpdateMessage or PAYMENT (repeatable)</source>
        <translation>tipo de evento do cabeçalho ou do corpo, por exemplo TransactionUpdateMessage ou PAYMENT (pode repetir)</translation>
    </message>
    <message>
        <source>status (repeatable)</source>
        <translation>status (pode repetir)</translation>
    </message>
    <message>
        <source>inbox verdict (repeatable)</source>
        <translation>veredito da caixa de entrada (pode repetir)</translation>
    </message>
    <message>
        <source>merchant charge id or service charge id</source>
        <translation>id da cobrança da loja ou id da cobrança no serviço</translation>
    </message>
    <message>
        <source>free text in ids, reason or body</source>
        <translation>texto livre nos ids, no motivo ou no corpo</translation>
    </message>
    <message>
        <source>write to FILE instead of standard output</source>
        <translation>grava no ARQUIVO em vez da saída padrão</translation>
    </message>
    <message>
        <source>{file} is the terminal&apos;s store or a database: an export never writes over it; choose another file</source>
        <translation>{file} é o banco de dados do terminal ou outro banco: uma exportação nunca grava por cima dele; escolha outro arquivo</translation>
    </message>
    <message>
        <source>there is no store at {store} yet (nothing has been received there); choose another with --data-dir or CHECKOUT_DESKTOP_HOME</source>
        <translation>ainda não há banco de dados em {store} (nada foi recebido ali); escolha outro com --data-dir ou CHECKOUT_DESKTOP_HOME</translation>
    </message>
    <message>
        <source>cannot write the export: {reason}</source>
        <translation>não foi possível gravar a exportação: {reason}</translation>
    </message>
    <message>
        <source>{raw} of {count} deliveries could not be rendered and were exported raw (body as base64, flagged &quot;unrenderable&quot;)</source>
        <translation>{raw} de {count} notificações não puderam ser lidas e foram exportadas em bruto (corpo em base64, marcadas &quot;unrenderable&quot;)</translation>
    </message>
    <message>
        <source>exported {count} deliveries to {file}</source>
        <translation>{count} notificações exportadas para {file}</translation>
    </message>
    <message>
        <source>{text} is not a time: use an ISO 8601 date or time (e.g. 2026-03-01 or 2026-03-01T09:00:00-03:00; UTC when no offset is given) or a span such as 90m, 12h, 7d or 2w</source>
        <translation>{text} não é um horário: use uma data ou hora ISO 8601 (por exemplo 2026-03-01 ou 2026-03-01T09:00:00-03:00; UTC quando não há fuso) ou um intervalo como 90m, 12h, 7d ou 2w</translation>
    </message>
</context>
<context>
    <name>EventsPanel</name>
    <message>
        <source>Any type</source>
        <translation>Qualquer tipo</translation>
    </message>
    <message>
        <source>Show health &amp;self-tests</source>
        <translation>Mostrar &amp;testes de saúde</translation>
    </message>
    <message>
        <source>The inbox checks itself every minute with a test delivery; shown on request.</source>
        <translation>A caixa de entrada se testa a cada minuto com uma entrega de teste; aparece só se pedido.</translation>
    </message>
    <message>
        <source>Any status</source>
        <translation>Qualquer situação</translation>
    </message>
    <message>
        <source>Any delivery</source>
        <translation>Qualquer entrega</translation>
    </message>
    <message>
        <source>Charge id</source>
        <translation>Id da cobrança</translation>
    </message>
    <message>
        <source>Search ids or the notification as received…</source>
        <translation>Buscar ids ou a notificação como chegou…</translation>
    </message>
    <message>
        <source>Finds charge and notification ids, and any text of a notification as it arrived, in the service&apos;s words (PAID, say). To see one status, choose it in the status list.</source>
        <translation>Encontra ids de cobrança e de notificação, e qualquer texto de uma notificação como chegou, nas palavras do serviço (PAID, por exemplo). Para ver uma situação, escolha-a na lista de situações.</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>Atualizar</translation>
    </message>
    <message>
        <source>Reload from the newest event (shows what another process stored)</source>
        <translation>Recarregar a partir do evento mais novo (mostra o que outro processo gravou)</translation>
    </message>
    <message>
        <source>{n} events shown; scroll for older ones</source>
        <translation>{n} eventos exibidos; role para ver os mais antigos</translation>
    </message>
    <message>
        <source>No events</source>
        <translation>Nenhum evento</translation>
    </message>
    <message>
        <source>No notification has arrived for charge {id}.</source>
        <translation>Nenhuma notificação chegou para a cobrança {id}.</translation>
    </message>
    <message>
        <source>1 event</source>
        <translation>1 evento</translation>
    </message>
    <message>
        <source>{n} events</source>
        <translation>{n} eventos</translation>
    </message>
    <message>
        <source>Searching… {n} found so far (looked back to event #{id})</source>
        <translation>Buscando… {n} encontrados até agora (olhou até o evento nº {id})</translation>
    </message>
</context>
<context>
    <name>FileDialog</name>
    <message>
        <source>PDF (*.pdf)</source>
        <translation>PDF (*.pdf)</translation>
    </message>
    <message>
        <source>Look in:</source>
        <translation>Procurar em:</translation>
    </message>
    <message>
        <source>File name:</source>
        <translation>Nome do arquivo:</translation>
    </message>
    <message>
        <source>Files of type:</source>
        <translation>Arquivos do tipo:</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>Salvar</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Cancelar</translation>
    </message>
</context>
<context>
    <name>FirstRunWizard</name>
    <message>
        <source>Set up checkout-desktop</source>
        <translation>Configurar o checkout-desktop</translation>
    </message>
    <message>
        <source>&lt; &amp;Back</source>
        <translation>&lt; &amp;Voltar</translation>
    </message>
    <message>
        <source>&amp;Next &gt;</source>
        <translation>&amp;Avançar &gt;</translation>
    </message>
    <message>
        <source>&amp;Finish</source>
        <translation>&amp;Concluir</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Cancelar</translation>
    </message>
</context>
<context>
    <name>Formatting</name>
    <message>
        <source>{minutes} min {seconds} s</source>
        <translation>{minutes} min {seconds} s</translation>
    </message>
    <message>
        <source>{seconds} s</source>
        <translation>{seconds} s</translation>
    </message>
</context>
<context>
    <name>HistoryPanel</name>
    <message>
        <source>The previous refund is still being confirmed with the service. Another refund or capture of this charge is refused until it is, so that money never moves twice.</source>
        <translation>O estorno anterior ainda está sendo confirmado com o serviço. Outro estorno ou captura desta cobrança fica recusado até lá, para que o dinheiro nunca seja movido duas vezes.</translation>
    </message>
    <message>
        <source>The previous capture is still being confirmed with the service. Another refund or capture of this charge is refused until it is, so that money never moves twice.</source>
        <translation>A captura anterior ainda está sendo confirmada com o serviço. Outro estorno ou captura desta cobrança fica recusado até lá, para que o dinheiro nunca seja movido duas vezes.</translation>
    </message>
    <message>
        <source>The previous cancellation is still being confirmed with the service. Another refund or capture of this charge is refused until it is, so that money never moves twice.</source>
        <translation>O cancelamento anterior ainda está sendo confirmado com o serviço. Outro estorno ou captura desta cobrança fica recusado até lá, para que o dinheiro nunca seja movido duas vezes.</translation>
    </message>
    <message>
        <source>The service could not be asked; its figures will be fetched again.</source>
        <translation>Não foi possível consultar o serviço; os valores serão consultados de novo.</translation>
    </message>
    <message>
        <source>The service shows: awaiting payment, nothing paid yet.</source>
        <translation>O serviço mostra: aguardando pagamento, nada pago ainda.</translation>
    </message>
    <message>
        <source>The service shows: {status}, {amount} charged, {refunded} refunded.</source>
        <translation>O serviço mostra: {status}, {amount} cobrados, {refunded} estornados.</translation>
    </message>
    <message>
        <source>The request was sent, but the store could not record its answer. The terminal asks the service once the store answers and will not send it again; nothing else can be done with this charge until then.</source>
        <translation>O pedido foi enviado, mas o banco de dados não conseguiu registrar a resposta. O terminal consulta o serviço assim que o banco de dados responder e não vai enviá-lo de novo; nada mais pode ser feito com esta cobrança até lá.</translation>
    </message>
    <message>
        <source>Not done: the shop&apos;s shared store does not answer (the server is down, or the network is in the way), so it could not be recorded. Nothing was sent; try again once the store answers.</source>
        <translation>Não feito: o banco compartilhado da loja não responde (o servidor está fora do ar ou a rede está com problema), então não pôde ser registrado. Nada foi enviado; tente de novo quando o banco de dados responder.</translation>
    </message>
    <message>
        <source>Not done: the store could not record it. Nothing was sent; try again once the store answers.</source>
        <translation>Não feito: o banco de dados não conseguiu registrá-lo. Nada foi enviado; tente de novo quando o banco de dados responder.</translation>
    </message>
    <message>
        <source>The request was sent but its answer was lost. The terminal is asking the service and will not send it again; nothing else can be done with this charge until then.</source>
        <translation>O pedido foi enviado, mas a resposta se perdeu. O terminal está consultando o serviço e não vai enviá-lo de novo; nada mais pode ser feito com esta cobrança até lá.</translation>
    </message>
    <message>
        <source>Not done: {why}.</source>
        <translation>Não realizado: {why}.</translation>
    </message>
    <message>
        <source>Reload</source>
        <translation>Recarregar</translation>
    </message>
    <message>
        <source>Customer name or CPF/CNPJ</source>
        <translation>Nome do cliente ou CPF/CNPJ</translation>
    </message>
    <message>
        <source>Any amount</source>
        <translation>Qualquer valor</translation>
    </message>
    <message>
        <source>Only charges of exactly this amount; empty (Delete) for any amount</source>
        <translation>Só cobranças deste valor exato; vazio (Delete) para qualquer valor</translation>
    </message>
    <message>
        <source>Card&apos;s last 4 digits</source>
        <translation>Final do cartão</translation>
    </message>
    <message>
        <source>Any date</source>
        <translation>Qualquer data</translation>
    </message>
    <message>
        <source>Today</source>
        <translation>Hoje</translation>
    </message>
    <message>
        <source>Yesterday</source>
        <translation>Ontem</translation>
    </message>
    <message>
        <source>Last 7 days</source>
        <translation>Últimos 7 dias</translation>
    </message>
    <message>
        <source>Last 30 days</source>
        <translation>Últimos 30 dias</translation>
    </message>
    <message>
        <source>Between dates…</source>
        <translation>Entre datas…</translation>
    </message>
    <message>
        <source>to</source>
        <translation>até</translation>
    </message>
    <message>
        <source>Other environments (read only)</source>
        <translation>Outros ambientes (somente leitura)</translation>
    </message>
    <message>
        <source>Also list charges made in another environment (for example the sandbox&apos;s test sales). They can be looked at, never refunded, captured or queried from here.</source>
        <translation>Lista também as cobranças feitas em outro ambiente (por exemplo, as vendas de teste do sandbox). Elas podem ser vistas, mas nunca estornadas, capturadas ou consultadas daqui.</translation>
    </message>
    <message>
        <source>Clear search</source>
        <translation>Limpar busca</translation>
    </message>
    <message>
        <source>Outcome unknown:</source>
        <translation>Resultado desconhecido:</translation>
    </message>
    <message>
        <source>&amp;End…</source>
        <translation>&amp;Encerrar…</translation>
    </message>
    <message>
        <source>Ask the service once more and, if it still cannot say, let a supervisor end the attempt so that its sale is free. The charge is never sent again.</source>
        <translation>Consulta o serviço mais uma vez e, se ele ainda não souber dizer, deixa um supervisor encerrar a tentativa para liberar a venda. A cobrança nunca é reenviada.</translation>
    </message>
    <message>
        <source>Select a charge to see its timeline.</source>
        <translation>Selecione uma cobrança para ver sua linha do tempo.</translation>
    </message>
    <message>
        <source>Select a line to see its details.</source>
        <translation>Selecione uma linha para ver os detalhes.</translation>
    </message>
    <message>
        <source>Technical detail</source>
        <translation>Detalhes técnicos</translation>
    </message>
    <message>
        <source>Show what was stored for support: raw statuses, sources and the message body.</source>
        <translation>Mostra o que foi guardado para o suporte: situações brutas, origens e o corpo da mensagem.</translation>
    </message>
    <message>
        <source>Re&amp;fund…</source>
        <translation>Es&amp;tornar…</translation>
    </message>
    <message>
        <source>Ca&amp;pture…</source>
        <translation>Ca&amp;pturar…</translation>
    </message>
    <message>
        <source>&amp;Query now</source>
        <translation>&amp;Consultar agora</translation>
    </message>
    <message>
        <source>&amp;Notifications</source>
        <translation>&amp;Notificações</translation>
    </message>
    <message>
        <source>Recei&amp;pt</source>
        <translation>Com&amp;provante</translation>
    </message>
    <message>
        <source>Print…</source>
        <translation>Imprimir…</translation>
    </message>
    <message>
        <source>Save as PDF…</source>
        <translation>Salvar como PDF…</translation>
    </message>
    <message>
        <source>Amount</source>
        <translation>Valor</translation>
    </message>
    <message>
        <source>{id} · sale {sale} · {amount} · since {at}</source>
        <translation>{id} · venda {sale} · {amount} · desde {at}</translation>
    </message>
    <message>
        <source>Ending an unresolved charge needs a supervisor PIN: set one in Settings.</source>
        <translation>Encerrar uma cobrança sem resultado exige um PIN de supervisor: defina um nas Configurações.</translation>
    </message>
    <message>
        <source>Asking the service once more…</source>
        <translation>Consultando o serviço mais uma vez…</translation>
    </message>
    <message>
        <source>The service settled it: {state}.</source>
        <translation>O serviço resolveu: {state}.</translation>
    </message>
    <message>
        <source>the service does not have it yet, and it could still appear</source>
        <translation>o serviço ainda não a tem, e ela ainda pode aparecer</translation>
    </message>
    <message>
        <source>Charge {id} for sale {sale}: {amount}, {cards}, recorded at {at}; the service was asked {n} time(s). Its last answer: {last}.

Ending it frees the sale for another charge. Nothing is sent again; if the service turns out to hold this charge, it appears in the history and can be refunded there.</source>
        <translation>Cobrança {id} da venda {sale}: {amount}, {cards}, registrada em {at}; o serviço foi consultado {n} vez(es). Última resposta: {last}.

Encerrar libera a venda para outra cobrança. Nada é reenviado; se o serviço tiver esta cobrança, ela aparece no histórico e pode ser estornada lá.</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>cancelado</translation>
    </message>
    <message>
        <source>Charge {id} ended; its sale is free.</source>
        <translation>Cobrança {id} encerrada; a venda está livre.</translation>
    </message>
    <message>
        <source>No charge matches this search.</source>
        <translation>Nenhuma cobrança corresponde a esta busca.</translation>
    </message>
    <message>
        <source>refunded {amount}</source>
        <translation>estornado {amount}</translation>
    </message>
    <message>
        <source>This terminal did not make this charge (only notifications told of it): shown read only.</source>
        <translation>Este terminal não fez esta cobrança (só as notificações falaram dela): mostrada somente para leitura.</translation>
    </message>
    <message>
        <source>Made in another environment ({environment}): shown read only. Refund, capture or query it from a terminal set to that environment.</source>
        <translation>Feita em outro ambiente ({environment}): mostrada somente para leitura. Estorne, capture ou consulte a partir de um terminal configurado para esse ambiente.</translation>
    </message>
    <message>
        <source>Print sale receipt…</source>
        <translation>Imprimir comprovante de venda…</translation>
    </message>
    <message>
        <source>Save sale receipt as PDF…</source>
        <translation>Salvar comprovante de venda como PDF…</translation>
    </message>
    <message>
        <source>Refund of {amount} · {at}</source>
        <translation>Estorno de {amount} · {at}</translation>
    </message>
    <message>
        <source>Refunds, {amount} in total · {at}</source>
        <translation>Estornos, {amount} no total · {at}</translation>
    </message>
    <message>
        <source>This service does not cancel an unpaid QR: it expires by itself. A payment made before then can be refunded here.</source>
        <translation>Este serviço não cancela um QR não pago: ele expira sozinho. Um pagamento feito antes disso pode ser estornado aqui.</translation>
    </message>
    <message>
        <source>The service confirmed where the charge stands; you may act on it again.</source>
        <translation>O serviço confirmou a situação da cobrança; você pode agir sobre ela de novo.</translation>
    </message>
    <message>
        <source>Refund {amount}</source>
        <translation>Estornar {amount}</translation>
    </message>
    <message>
        <source>Refund charge {id} ({cards}). Money goes back to the customer&apos;s card; this cannot be undone.</source>
        <translation>Estornar a cobrança {id} ({cards}). O dinheiro volta para o cartão do cliente; não há como desfazer.</translation>
    </message>
    <message>
        <source>It is not captured yet: this cancels the authorization.</source>
        <translation>Ela ainda não foi capturada: isto cancela a autorização.</translation>
    </message>
    <message>
        <source>Refund</source>
        <translation>Estorno</translation>
    </message>
    <message>
        <source>Made at counter {counter}, on that computer&apos;s own built-in sandbox: only that sandbox knows this charge, so it is shown read only here. Refund or query it at that counter.</source>
        <translation>Feita no caixa {counter}, no sandbox embutido daquele computador: só aquele sandbox conhece esta cobrança, por isso aqui ela é mostrada somente para leitura. Estorne ou consulte naquele caixa.</translation>
    </message>
    <message>
        <source>Made on an earlier built-in sandbox, before this terminal kept its sandbox&apos;s sales: no running sandbox knows this charge, so it is shown read only.</source>
        <translation>Feita num sandbox embutido anterior, de antes de o terminal guardar as vendas do sandbox: nenhum sandbox em funcionamento conhece esta cobrança, por isso ela é mostrada somente para leitura.</translation>
    </message>
    <message>
        <source>Cancel the authorization of {amount}</source>
        <translation>Cancelar a autorização de {amount}</translation>
    </message>
    <message>
        <source>QR cancelled.</source>
        <translation>QR cancelado.</translation>
    </message>
    <message>
        <source>Refund of {amount} done.</source>
        <translation>Estorno de {amount} feito.</translation>
    </message>
    <message>
        <source>Capture</source>
        <translation>Captura</translation>
    </message>
    <message>
        <source>Capture charge {id} ({cards}): the authorized amount is charged to the card.</source>
        <translation>Capturar a cobrança {id} ({cards}): o valor autorizado é cobrado no cartão.</translation>
    </message>
    <message>
        <source>Capture {amount}</source>
        <translation>Capturar {amount}</translation>
    </message>
    <message>
        <source>Captured {amount}.</source>
        <translation>Capturado {amount}.</translation>
    </message>
    <message>
        <source>Asked the service just now.</source>
        <translation>Serviço consultado agora.</translation>
    </message>
    <message>
        <source>Working…</source>
        <translation>Processando…</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>Cancelado.</translation>
    </message>
    <message>
        <source>All statuses</source>
        <translation>Todas as situações</translation>
    </message>
    <message>
        <source>Failed: {why}</source>
        <translation>Falhou: {why}</translation>
    </message>
</context>
<context>
    <name>InstanceGuard</name>
    <message>
        <source>cannot write in the data folder {folder} ({reason}); make it writable by this user (or choose another folder with --data-dir) and start again</source>
        <translation>não foi possível escrever na pasta de dados {folder} ({reason}); dê permissão de escrita a este usuário (ou escolha outra pasta com --data-dir) e inicie de novo</translation>
    </message>
    <message>
        <source>already running for {folder}; its window was brought to the front</source>
        <translation>já está aberto para {folder}; a janela dele foi trazida para a frente</translation>
    </message>
    <message>
        <source>already running for {folder} (process {pid}); its window was brought to the front</source>
        <translation>já está aberto para {folder} (processo {pid}); a janela dele foi trazida para a frente</translation>
    </message>
    <message>
        <source>another terminal is using {folder} and did not answer; wait for it to finish starting or close it, then try again</source>
        <translation>outro terminal está usando {folder} e não respondeu; espere ele terminar de iniciar ou feche-o, e tente de novo</translation>
    </message>
    <message>
        <source>another terminal (process {pid}) is using {folder} and did not answer; wait for it to finish starting or close it, then try again</source>
        <translation>outro terminal (processo {pid}) está usando {folder} e não respondeu; espere ele terminar de iniciar ou feche-o, e tente de novo</translation>
    </message>
    <message>
        <source>checkout-desktop is already open on this computer, but it did not answer.</source>
        <translation>O checkout-desktop já está aberto neste computador, mas não respondeu.</translation>
    </message>
    <message>
        <source>It may still be starting: wait a moment and look for its window, which may be behind another one. If it never appears, end “checkout-desktop” in the system monitor, then open it again.</source>
        <translation>Ele pode estar terminando de iniciar: espere um pouco e procure a janela dele, que pode estar atrás de outra. Se ela não aparecer, encerre o “checkout-desktop” no monitor do sistema e abra-o de novo.</translation>
    </message>
</context>
<context>
    <name>InterruptedNotice</name>
    <message>
        <source>The interrupted sale of {amount} ({id}) is still being checked with the service: do not charge it again until its outcome is told.</source>
        <translation>A venda interrompida de {amount} ({id}) ainda está em consulta no serviço: não cobre de novo antes de o resultado ser informado.</translation>
    </message>
    <message>
        <source>The interrupted sale of {amount} ({id}) was not charged: you may charge it again.</source>
        <translation>A venda interrompida de {amount} ({id}) não foi cobrada: pode cobrar de novo.</translation>
    </message>
    <message>
        <source>The interrupted sale of {amount} ({id}) was ended by a supervisor; see it in the History before charging it again.</source>
        <translation>A venda interrompida de {amount} ({id}) foi encerrada por um supervisor; veja-a no Histórico antes de cobrar de novo.</translation>
    </message>
    <message>
        <source>The interrupted sale of {amount} ({id}) was paid: do not charge it again.</source>
        <translation>A venda interrompida de {amount} ({id}) foi paga: não cobre de novo.</translation>
    </message>
    <message>
        <source>The interrupted sale of {amount} ({id}) was declined: nothing was charged; you may charge it again.</source>
        <translation>A venda interrompida de {amount} ({id}) foi recusada: nada foi cobrado; pode cobrar de novo.</translation>
    </message>
    <message>
        <source>The interrupted sale of {amount} ({id}) was authorized and awaits its capture: capture it in the History; do not charge it again.</source>
        <translation>A venda interrompida de {amount} ({id}) foi autorizada e aguarda a captura: capture-a no Histórico; não cobre de novo.</translation>
    </message>
    <message>
        <source>The interrupted sale of {amount} ({id}) has its QR awaiting the customer&apos;s payment: do not charge it again before the QR ends.</source>
        <translation>A venda interrompida de {amount} ({id}) tem o QR aguardando o pagamento do cliente: não cobre de novo antes de o QR terminar.</translation>
    </message>
    <message>
        <source>The interrupted sale of {amount} ({id}) is now: {status}.</source>
        <translation>A venda interrompida de {amount} ({id}) está agora: {status}.</translation>
    </message>
    <message>
        <source>The interrupted capture of {amount} of sale {id} is still being checked with the service: do not capture it again until its outcome is told.</source>
        <translation>A captura interrompida de {amount} da venda {id} ainda está em consulta no serviço: não capture de novo antes de o resultado ser informado.</translation>
    </message>
    <message>
        <source>The interrupted capture of {amount} of sale {id} was made: the sale is paid.</source>
        <translation>A captura interrompida de {amount} da venda {id} foi feita: a venda está paga.</translation>
    </message>
    <message>
        <source>The interrupted capture of {amount} of sale {id} was not made: you may capture it again in the History.</source>
        <translation>A captura interrompida de {amount} da venda {id} não foi feita: pode capturar de novo no Histórico.</translation>
    </message>
    <message>
        <source>The interrupted cancellation of {amount} of sale {id} is still being checked with the service: do not cancel it again until its outcome is told.</source>
        <translation>O cancelamento interrompido de {amount} da venda {id} ainda está em consulta no serviço: não cancele de novo antes de o resultado ser informado.</translation>
    </message>
    <message>
        <source>The interrupted cancellation of {amount} of sale {id} was made: nothing was charged.</source>
        <translation>O cancelamento interrompido de {amount} da venda {id} foi feito: nada foi cobrado.</translation>
    </message>
    <message>
        <source>The interrupted cancellation of {amount} of sale {id} was not made: you may cancel it again in the History.</source>
        <translation>O cancelamento interrompido de {amount} da venda {id} não foi feito: pode cancelar de novo no Histórico.</translation>
    </message>
    <message>
        <source>The interrupted refund of {amount} of sale {id} is still being checked with the service: do not refund it again until its outcome is told.</source>
        <translation>O estorno interrompido de {amount} da venda {id} ainda está em consulta no serviço: não estorne de novo antes de o resultado ser informado.</translation>
    </message>
    <message>
        <source>The interrupted refund of {amount} of sale {id} was made: do not refund it again.</source>
        <translation>O estorno interrompido de {amount} da venda {id} foi feito: não estorne de novo.</translation>
    </message>
    <message>
        <source>The interrupted refund of {amount} of sale {id} was not made: you may refund it again in the History.</source>
        <translation>O estorno interrompido de {amount} da venda {id} não foi feito: pode estornar de novo no Histórico.</translation>
    </message>
    <message>
        <source>The terminal stopped in the middle of an operation</source>
        <translation>O terminal parou no meio de uma operação</translation>
    </message>
    <message>
        <source>Open in the &amp;History</source>
        <translation>Abrir no &amp;Histórico</translation>
    </message>
</context>
<context>
    <name>Keychain</name>
    <message>
        <source>checkout-desktop keeps its secrets only in the operating system&apos;s keychain and found none it can use. On Linux install and unlock a Secret Service provider (Debian/Ubuntu: `apt-get install gnome-keyring`, then log in to a desktop session, or run it under `dbus-run-session` with `gnome-keyring-daemon --unlock`); KWallet also works. Windows Credential Manager and the macOS Keychain work out of the box. Secrets are never written to a plain file.</source>
        <translation>o checkout-desktop guarda seus segredos só no chaveiro do sistema operacional e não encontrou nenhum que possa usar. No Linux, instale e desbloqueie um provedor do Secret Service (Debian/Ubuntu: `apt-get install gnome-keyring`, depois entre numa sessão de área de trabalho, ou rode-o com `dbus-run-session` e `gnome-keyring-daemon --unlock`); o KWallet também serve. O Gerenciador de Credenciais do Windows e o Keychain do macOS funcionam sem configuração. Os segredos nunca são gravados num arquivo comum.</translation>
    </message>
    <message>
        <source>the API client secret</source>
        <translation>o segredo do cliente da API</translation>
    </message>
    <message>
        <source>the card SDK&apos;s merchant token</source>
        <translation>o token de loja do SDK de cartão</translation>
    </message>
    <message>
        <source>the webhook authentication token</source>
        <translation>o token de autenticação do webhook</translation>
    </message>
    <message>
        <source>{help} ({detail})</source>
        <translation>{help} ({detail})</translation>
    </message>
    <message>
        <source>{secret} for profile {profile} is not in the keychain; enter it in Settings → Credentials (it is shown only once in the merchant panel)</source>
        <translation>{secret} do perfil {profile} não está no chaveiro; informe em Configurações → Credenciais (ele é mostrado uma única vez no painel da loja)</translation>
    </message>
    <message>
        <source>backend found: {backend}</source>
        <translation>backend encontrado: {backend}</translation>
    </message>
    <message>
        <source>no backend in the chain</source>
        <translation>nenhum backend na cadeia</translation>
    </message>
    <message>
        <source>keychain error: {error}</source>
        <translation>erro do chaveiro: {error}</translation>
    </message>
</context>
<context>
    <name>Labels</name>
    <message>
        <source>Pending</source>
        <translation>Pendente</translation>
    </message>
    <message>
        <source>Pre-authorized</source>
        <translation>Pré-autorizada</translation>
    </message>
    <message>
        <source>Authorized</source>
        <translation>Autorizada</translation>
    </message>
    <message>
        <source>Paid</source>
        <translation>Paga</translation>
    </message>
    <message>
        <source>Captured</source>
        <translation>Capturada</translation>
    </message>
    <message>
        <source>Partially refunded</source>
        <translation>Estornada em parte</translation>
    </message>
    <message>
        <source>Denied</source>
        <translation>Negada</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>Erro</translation>
    </message>
    <message>
        <source>Canceled</source>
        <translation>Cancelada</translation>
    </message>
    <message>
        <source>Refunded</source>
        <translation>Estornada</translation>
    </message>
    <message>
        <source>Chargeback</source>
        <translation>Chargeback</translation>
    </message>
    <message>
        <source>Expired</source>
        <translation>Expirada</translation>
    </message>
    <message>
        <source>3DS approved</source>
        <translation>3DS aprovado</translation>
    </message>
    <message>
        <source>3DS challenged</source>
        <translation>3DS em desafio</translation>
    </message>
    <message>
        <source>3DS rejected</source>
        <translation>3DS recusado</translation>
    </message>
    <message>
        <source>Recorded before sending</source>
        <translation>Registrada antes do envio</translation>
    </message>
    <message>
        <source>Outcome unknown</source>
        <translation>Resultado desconhecido</translation>
    </message>
    <message>
        <source>Created at the service</source>
        <translation>Criada no serviço</translation>
    </message>
    <message>
        <source>Refused, not charged</source>
        <translation>Recusada, não cobrada</translation>
    </message>
    <message>
        <source>Not found, not charged</source>
        <translation>Não encontrada, não cobrada</translation>
    </message>
    <message>
        <source>Ended by a supervisor</source>
        <translation>Encerrada por um supervisor</translation>
    </message>
    <message>
        <source>Sent to the service</source>
        <translation>Enviada ao serviço</translation>
    </message>
    <message>
        <source>Confirmed by the service</source>
        <translation>Confirmada pelo serviço</translation>
    </message>
    <message>
        <source>Not done</source>
        <translation>Não realizada</translation>
    </message>
    <message>
        <source>Transparent token (tk_…)</source>
        <translation>Token transparente (tk_…)</translation>
    </message>
    <message>
        <source>Merchant token (the SDK hashes it with the CNPJ)</source>
        <translation>Token do lojista (o SDK o combina com o CNPJ)</translation>
    </message>
    <message>
        <source>Which token the merchant panel gave for the card SDK: a transparent token starts with tk_; the documentation&apos;s setCredentials example uses a merchant token.</source>
        <translation>Qual token o painel do lojista forneceu para o SDK de cartão: um token transparente começa com tk_; o exemplo de setCredentials da documentação usa um token do lojista.</translation>
    </message>
    <message>
        <source>Payment update</source>
        <translation>Atualização de pagamento</translation>
    </message>
    <message>
        <source>3DS result</source>
        <translation>Resultado 3DS</translation>
    </message>
    <message>
        <source>Inbox health check</source>
        <translation>Teste de saúde da caixa de entrada</translation>
    </message>
    <message>
        <source>Accepted</source>
        <translation>Aceita</translation>
    </message>
    <message>
        <source>Duplicate</source>
        <translation>Duplicada</translation>
    </message>
    <message>
        <source>Unknown type</source>
        <translation>Tipo desconhecido</translation>
    </message>
    <message>
        <source>Self-test</source>
        <translation>Autoteste</translation>
    </message>
    <message>
        <source>Rejected</source>
        <translation>Recusada</translation>
    </message>
    <message>
        <source>Accepted: stored and applied to its charge.</source>
        <translation>Aceita: guardada e usada para atualizar a cobrança.</translation>
    </message>
    <message>
        <source>Duplicate: the same body arrived before; stored, not applied again.</source>
        <translation>Repetida: esta mesma notificação já tinha chegado; guardada, sem ser usada de novo.</translation>
    </message>
    <message>
        <source>Unknown type: stored as received, not applied to any charge.</source>
        <translation>Tipo desconhecido: guardada como chegou, sem mudar nenhuma cobrança.</translation>
    </message>
    <message>
        <source>Self-test: the inbox&apos;s own health check, not a charge event.</source>
        <translation>Autoteste: a verificação de saúde da própria caixa de entrada, não um evento de cobrança.</translation>
    </message>
    <message>
        <source>Rejected: the body could not be accepted; kept in quarantine.</source>
        <translation>Recusada: o corpo não pôde ser aceito; mantido em quarentena.</translation>
    </message>
    <message>
        <source>Request</source>
        <translation>Pedido</translation>
    </message>
    <message>
        <source>Reply</source>
        <translation>Resposta</translation>
    </message>
    <message>
        <source>Notification</source>
        <translation>Notificação</translation>
    </message>
    <message>
        <source>Reconciliation</source>
        <translation>Conciliação</translation>
    </message>
    <message>
        <source>3DS</source>
        <translation>3DS</translation>
    </message>
    <message>
        <source>System</source>
        <translation>Sistema</translation>
    </message>
    <message>
        <source>applied</source>
        <translation>atualizou a cobrança</translation>
    </message>
    <message>
        <source>no change</source>
        <translation>nada de novo</translation>
    </message>
    <message>
        <source>older, ignored</source>
        <translation>mais antiga, deixada de lado</translation>
    </message>
    <message>
        <source>recorded</source>
        <translation>registrado</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>falhou</translation>
    </message>
    <message>
        <source>sent</source>
        <translation>enviado</translation>
    </message>
    <message>
        <source>notification #{id}</source>
        <translation>notificação nº {id}</translation>
    </message>
    <message>
        <source>refund or capture #{id}</source>
        <translation>estorno ou captura nº {id}</translation>
    </message>
    <message>
        <source>Built-in sandbox (no account needed)</source>
        <translation>Sandbox embutido (sem conta)</translation>
    </message>
    <message>
        <source>Service sandbox</source>
        <translation>Sandbox do serviço</translation>
    </message>
    <message>
        <source>Production</source>
        <translation>Produção</translation>
    </message>
    <message>
        <source>Awaiting payment</source>
        <translation>Aguardando pagamento</translation>
    </message>
</context>
<context>
    <name>Launch</name>
    <message>
        <source>It has no API address: type the service&apos;s address (https://…).</source>
        <translation>Ele não tem endereço da API: digite o endereço do serviço (https://…).</translation>
    </message>
    <message>
        <source>It has no client id: copy it from the merchant panel (Integrations → Checkout).</source>
        <translation>Ele não tem client id: copie-o do painel do lojista (Integrações → Checkout).</translation>
    </message>
    <message>
        <source>checkout-desktop</source>
        <translation>checkout-desktop</translation>
    </message>
    <message>
        <source>The environment “{env}” cannot start, so no sale can be charged yet.</source>
        <translation>O ambiente “{env}” não consegue iniciar, então nenhuma venda pode ser cobrada ainda.</translation>
    </message>
    <message>
        <source>Open the setup to fix it now, or quit and fix it later.</source>
        <translation>Abra a configuração para corrigir agora, ou saia e corrija depois.</translation>
    </message>
    <message>
        <source>Technical detail: {detail}</source>
        <translation>Detalhe técnico: {detail}</translation>
    </message>
    <message>
        <source>Open the &amp;setup</source>
        <translation>Abrir a &amp;configuração</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Sair</translation>
    </message>
    <message>
        <source>The shared database&apos;s address is not valid: choose the store again.</source>
        <translation>O endereço do banco compartilhado não é válido: escolha de novo onde as vendas ficam guardadas.</translation>
    </message>
    <message>
        <source>The database server refused the connection.</source>
        <translation>O servidor do banco recusou a conexão.</translation>
    </message>
    <message>
        <source>The database server refused the login of “{user}” to “{database}”: the password kept on this computer is wrong, or the user may not log in.</source>
        <translation>O servidor do banco recusou o login de “{user}” em “{database}”: a senha guardada neste computador está errada, ou o usuário não pode entrar.</translation>
    </message>
    <message>
        <source>The database server asks for a password, and this computer&apos;s keychain keeps none for “{user}” on “{database}”.</source>
        <translation>O servidor do banco pede uma senha, e o chaveiro deste computador não guarda nenhuma para “{user}” em “{database}”.</translation>
    </message>
    <message>
        <source>The database server {server} does not answer: check that it is on and that this computer reaches it (network, firewall), then start again.</source>
        <translation>O servidor do banco {server} não responde: confira se ele está ligado e se este computador o alcança (rede, firewall), e inicie de novo.</translation>
    </message>
    <message>
        <source>The database server {server} has no database named “{database}”: create it, or choose another one in the setup.</source>
        <translation>O servidor {server} não tem um banco chamado “{database}”: crie-o, ou escolha outro na configuração.</translation>
    </message>
    <message>
        <source>To set the password, open the setup and type it in Password, or run this command in a terminal:
{command}</source>
        <translation>Para definir a senha, abra a configuração e digite-a em Senha, ou execute este comando num terminal:
{command}</translation>
    </message>
    <message>
        <source>The shop&apos;s shared database cannot be used, so the terminal cannot start.</source>
        <translation>O banco compartilhado da loja não pode ser usado, por isso o terminal não pode iniciar.</translation>
    </message>
    <message>
        <source>Open the setup to fix it, or to keep the sales on this computer; or quit and fix it later.</source>
        <translation>Abra a configuração para corrigir, ou para guardar as vendas neste computador; ou saia e corrija depois.</translation>
    </message>
    <message>
        <source>The database was given with --store: fix it there, or start without it.</source>
        <translation>O banco foi indicado com --store: corrija-o ali, ou inicie sem ele.</translation>
    </message>
</context>
<context>
    <name>ListenCommand</name>
    <message>
        <source>port to listen on (0: any free port; default: the one in settings)</source>
        <translation>porta em que escutar (0: qualquer porta livre; padrão: a das configurações)</translation>
    </message>
    <message>
        <source>loopback address to bind (default: the one in settings, normally 127.0.0.1)</source>
        <translation>endereço local (loopback) em que escutar (padrão: o das configurações, normalmente 127.0.0.1)</translation>
    </message>
    <message>
        <source>allow a --host that is not loopback (an inbox shared on a trusted network); without it any address but 127.0.0.1, ::1 or localhost is refused</source>
        <translation>permite um --host que não seja local (uma caixa de entrada compartilhada numa rede confiável); sem isso, qualquer endereço que não seja 127.0.0.1, ::1 ou localhost é recusado</translation>
    </message>
    <message>
        <source>read the webhook token from FILE instead of the keychain; FILE must be readable by its owner only (chmod 600)</source>
        <translation>lê o token do webhook do ARQUIVO em vez do chaveiro; só o dono pode ler o ARQUIVO (chmod 600)</translation>
    </message>
    <message>
        <source>profile whose webhook token the keychain holds</source>
        <translation>perfil cujo token do webhook está no chaveiro</translation>
    </message>
    <message>
        <source>do not start the tunnel set in settings</source>
        <translation>não inicia o túnel definido nas configurações</translation>
    </message>
    <message>
        <source>the built-in sandbox (profile {profile}) notifies the terminal&apos;s own inbox while the window runs, and needs no token; listen is for a real environment: name its profile with --profile NAME (known profiles: {known}) or choose it in Settings → Environment</source>
        <translation>o sandbox embutido (perfil {profile}) notifica a caixa de entrada do próprio terminal enquanto a janela está aberta e não precisa de token; listen é para um ambiente real: indique o perfil dele com --profile NOME (perfis existentes: {known}) ou escolha-o em Configurações → Ambiente</translation>
    </message>
    <message>
        <source>(or pass the token with --token-file FILE)</source>
        <translation>(ou passe o token com --token-file ARQUIVO)</translation>
    </message>
    <message>
        <source>waiting: the shop&apos;s inbox is held by {counter} on {host} (process {pid}); this one takes it over when that one stops</source>
        <translation>aguardando: a caixa de entrada da loja está com {counter} em {host} (processo {pid}); esta assume quando aquela parar</translation>
    </message>
    <message>
        <source>healthy</source>
        <translation>saudável</translation>
    </message>
    <message>
        <source>degraded</source>
        <translation>degradada</translation>
    </message>
    <message>
        <source>down</source>
        <translation>fora do ar</translation>
    </message>
    <message>
        <source>inbox health: {level} — {reason}</source>
        <translation>saúde da caixa de entrada: {level} — {reason}</translation>
    </message>
    <message>
        <source>stopped; {stored} stored, {duplicates} duplicates, {quarantined} quarantined, {refused} refused</source>
        <translation>parado; {stored} guardadas, {duplicates} repetidas, {quarantined} em quarentena, {refused} recusadas</translation>
    </message>
    <message>
        <source>ACTION NEEDED: set the notification URL in the merchant panel to {url} (it holds {previous}); until then the service delivers to a dead address</source>
        <translation>AÇÃO NECESSÁRIA: no painel da loja, mude o endereço de notificações para {url} (lá está {previous}); até lá o serviço entrega num endereço morto</translation>
    </message>
    <message>
        <source>ACTION NEEDED: set the notification URL in the merchant panel to {url} (it holds nothing); until then the service delivers to a dead address</source>
        <translation>AÇÃO NECESSÁRIA: no painel da loja, defina o endereço de notificações como {url} (lá não há nenhum); até lá o serviço entrega num endereço morto</translation>
    </message>
</context>
<context>
    <name>ListenerFailureNotice</name>
    <message>
        <source>Payment notifications</source>
        <translation>Notificações de pagamento</translation>
    </message>
    <message>
        <source>The inbox did not start, so payment notifications cannot arrive at this terminal.</source>
        <translation>A caixa de entrada não iniciou, então as notificações de pagamento não podem chegar a este terminal.</translation>
    </message>
    <message>
        <source>Sales still work: their final status is asked of the service instead. Check the port and the tunnel in Settings; the red line above the tabs stays until the inbox works.</source>
        <translation>As vendas continuam funcionando: a situação final delas é perguntada ao serviço. Confira a porta e o túnel em Configurações; a linha vermelha acima das abas fica até a caixa de entrada funcionar.</translation>
    </message>
    <message>
        <source>Technical detail: {detail}</source>
        <translation>Detalhe técnico: {detail}</translation>
    </message>
</context>
<context>
    <name>ListenerRules</name>
    <message>
        <source>every address</source>
        <translation>todos os endereços</translation>
    </message>
    <message>
        <source>the inbox listens on this machine only (127.0.0.1 or ::1), not on {host}; change the listener&apos;s host in the settings back to 127.0.0.1 (a tunnel or a reverse proxy on this machine forwards the service&apos;s deliveries), or start `checkout-desktop listen --allow-remote` to share the inbox on a trusted network</source>
        <translation>a caixa de entrada escuta só neste computador (127.0.0.1 ou ::1), não em {host}; volte o endereço do receptor nas configurações para 127.0.0.1 (um túnel ou um proxy reverso neste computador repassa as entregas do serviço), ou inicie `checkout-desktop listen --allow-remote` para compartilhar a caixa de entrada numa rede confiável</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>checkout-desktop — {env}</source>
        <translation>checkout-desktop — {env}</translation>
    </message>
    <message>
        <source>&amp;Charge</source>
        <translation>&amp;Cobrar</translation>
    </message>
    <message>
        <source>&amp;Events</source>
        <translation>&amp;Eventos</translation>
    </message>
    <message>
        <source>&amp;History</source>
        <translation>&amp;Histórico</translation>
    </message>
    <message>
        <source>&amp;Today</source>
        <translation>&amp;Hoje</translation>
    </message>
    <message>
        <source>&amp;Settings</source>
        <translation>&amp;Configurações</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>desconhecido</translation>
    </message>
    <message>
        <source>Another built-in sandbox</source>
        <translation>Outro sandbox embutido</translation>
    </message>
    <message>
        <source>QR {id} paid after it had ended — see the History</source>
        <translation>QR {id} pago depois de encerrado — veja o Histórico</translation>
    </message>
    <message>
        <source>QR {id} paid — see the note</source>
        <translation>QR {id} pago — veja o aviso</translation>
    </message>
    <message>
        <source>A QR was paid</source>
        <translation>Um QR foi pago</translation>
    </message>
    <message>
        <source>Charge {id}</source>
        <translation>Cobrança {id}</translation>
    </message>
    <message>
        <source>Now {status}</source>
        <translation>Agora {status}</translation>
    </message>
    <message>
        <source>{before} → {after}</source>
        <translation>{before} → {after}</translation>
    </message>
    <message>
        <source>The receipt could not be made; try again.</source>
        <translation>Não foi possível gerar o comprovante; tente de novo.</translation>
    </message>
    <message>
        <source>Receipt</source>
        <translation>Comprovante</translation>
    </message>
    <message>
        <source>Save receipt</source>
        <translation>Salvar comprovante</translation>
    </message>
    <message>
        <source>The receipt could not be saved: {why}</source>
        <translation>O comprovante não pôde ser salvo: {why}</translation>
    </message>
    <message>
        <source>Receipt saved: {path}</source>
        <translation>Comprovante salvo: {path}</translation>
    </message>
    <message>
        <source>A charge is in progress</source>
        <translation>Há uma cobrança em andamento</translation>
    </message>
    <message>
        <source>A charge is in progress. The window cannot close until its reply is recorded, so the sale&apos;s result is never lost.</source>
        <translation>Há uma cobrança em andamento. A janela só pode fechar depois que a resposta for registrada, para que o resultado da venda nunca se perca.</translation>
    </message>
    <message>
        <source>Close when it &amp;ends</source>
        <translation>Fechar quando &amp;terminar</translation>
    </message>
    <message>
        <source>&amp;Keep it open</source>
        <translation>&amp;Manter aberta</translation>
    </message>
    <message>
        <source>The customer is confirming at the bank</source>
        <translation>O cliente está confirmando no banco</translation>
    </message>
    <message>
        <source>The customer is still confirming the payment at the bank. Cancel the confirmation and close the window? Nothing will be charged.</source>
        <translation>O cliente ainda está confirmando o pagamento no banco. Cancelar a confirmação e fechar a janela? Nada será cobrado.</translation>
    </message>
    <message>
        <source>&amp;Cancel the confirmation and close</source>
        <translation>&amp;Cancelar a confirmação e fechar</translation>
    </message>
    <message>
        <source>1 QR is still awaiting payment ({charges}).</source>
        <translation>1 QR ainda aguarda pagamento ({charges}).</translation>
    </message>
    <message>
        <source>{n} QRs are still awaiting payment ({charges}).</source>
        <translation>{n} QRs ainda aguardam pagamento ({charges}).</translation>
    </message>
    <message>
        <source>The built-in sandbox stops with the terminal: nobody can pay it while the terminal is closed; it can be paid again once the terminal opens, until it expires.</source>
        <translation>O sandbox embutido para junto com o terminal: ninguém consegue pagá-lo enquanto o terminal estiver fechado; ele poderá ser pago de novo quando o terminal abrir, até expirar.</translation>
    </message>
    <message>
        <source>The built-in sandbox stops with the terminal: nobody can pay them while the terminal is closed; they can be paid again once the terminal opens, until they expire.</source>
        <translation>O sandbox embutido para junto com o terminal: ninguém consegue pagá-los enquanto o terminal estiver fechado; eles poderão ser pagos de novo quando o terminal abrir, até expirarem.</translation>
    </message>
    <message>
        <source>It stays payable until it expires, with the terminal closed too; a payment is announced when the terminal opens again.</source>
        <translation>Ele continua pagável até expirar, mesmo com o terminal fechado; um pagamento é avisado quando o terminal abrir de novo.</translation>
    </message>
    <message>
        <source>They stay payable until they expire, with the terminal closed too; a payment is announced when the terminal opens again.</source>
        <translation>Eles continuam pagáveis até expirarem, mesmo com o terminal fechado; um pagamento é avisado quando o terminal abrir de novo.</translation>
    </message>
    <message>
        <source>Cancel it if the customer will not pay it.</source>
        <translation>Cancele-o se o cliente não for pagá-lo.</translation>
    </message>
    <message>
        <source>Cancel them if the customers will not pay them.</source>
        <translation>Cancele-os se os clientes não forem pagá-los.</translation>
    </message>
    <message>
        <source>This service does not cancel an unpaid QR; refund a payment from the History if the sale was paid another way.</source>
        <translation>Este serviço não cancela um QR não pago; estorne um pagamento pelo Histórico se a venda tiver sido paga de outra forma.</translation>
    </message>
    <message>
        <source>QRs still waiting</source>
        <translation>QRs ainda aguardando</translation>
    </message>
    <message>
        <source>A QR is still waiting</source>
        <translation>Um QR ainda está aguardando</translation>
    </message>
    <message>
        <source>&amp;Cancel the QR and close</source>
        <translation>&amp;Cancelar o QR e fechar</translation>
    </message>
    <message>
        <source>&amp;Cancel the QRs and close</source>
        <translation>&amp;Cancelar os QRs e fechar</translation>
    </message>
    <message>
        <source>Close &amp;anyway</source>
        <translation>&amp;Fechar mesmo assim</translation>
    </message>
    <message>
        <source>Cancelling the QR…</source>
        <translation>Cancelando o QR…</translation>
    </message>
    <message>
        <source>Cancelling the QRs…</source>
        <translation>Cancelando os QRs…</translation>
    </message>
    <message>
        <source>QR {id}: {why}</source>
        <translation>QR {id}: {why}</translation>
    </message>
    <message>
        <source>Not cancelled</source>
        <translation>Não cancelado</translation>
    </message>
    <message>
        <source>The QR was not cancelled, so the window stays open.</source>
        <translation>O QR não foi cancelado; por isso a janela continua aberta.</translation>
    </message>
    <message>
        <source>{n} QRs were not cancelled, so the window stays open.</source>
        <translation>{n} QRs não foram cancelados; por isso a janela continua aberta.</translation>
    </message>
    <message>
        <source>&amp;Keep the window open</source>
        <translation>&amp;Manter a janela aberta</translation>
    </message>
</context>
<context>
    <name>MoneyActionDialog</name>
    <message>
        <source>Amount</source>
        <translation>Valor</translation>
    </message>
    <message>
        <source>Up to</source>
        <translation>Até</translation>
    </message>
    <message>
        <source>Supervisor PIN</source>
        <translation>PIN do supervisor</translation>
    </message>
    <message>
        <source>Type an amount above zero.</source>
        <translation>Digite um valor acima de zero.</translation>
    </message>
    <message>
        <source>At most {amount}.</source>
        <translation>No máximo {amount}.</translation>
    </message>
    <message>
        <source>Wrong supervisor PIN.</source>
        <translation>PIN do supervisor incorreto.</translation>
    </message>
</context>
<context>
    <name>Paths</name>
    <message>
        <source>the folder {folder} can be changed by other users (mode {mode}); make it yours alone with `chmod 700 {folder}` and start again</source>
        <translation>a pasta {folder} pode ser alterada por outros usuários (modo {mode}); deixe-a só sua com `chmod 700 {folder}` e comece de novo</translation>
    </message>
    <message>
        <source>the folder {folder} belongs to another user; use a folder of your own (--data-dir or CHECKOUT_DESKTOP_HOME)</source>
        <translation>a pasta {folder} pertence a outro usuário; use uma pasta sua (--data-dir ou CHECKOUT_DESKTOP_HOME)</translation>
    </message>
    <message>
        <source>{file} is a file where the terminal keeps a folder (its settings, store and logs); choose another folder with --data-dir or CHECKOUT_DESKTOP_HOME, or move the file away, and start again</source>
        <translation>{file} é um arquivo onde o terminal guarda uma pasta (suas configurações, banco de dados e registros); escolha outra pasta com --data-dir ou CHECKOUT_DESKTOP_HOME, ou tire o arquivo de lá, e inicie de novo</translation>
    </message>
    <message>
        <source>cannot create the folder {folder} ({reason}); choose a folder of your own with --data-dir or CHECKOUT_DESKTOP_HOME and start again</source>
        <translation>não foi possível criar a pasta {folder} ({reason}); escolha uma pasta sua com --data-dir ou CHECKOUT_DESKTOP_HOME e inicie de novo</translation>
    </message>
</context>
<context>
    <name>Placeholder</name>
    <message>
        <source>NAME</source>
        <translation>NOME</translation>
    </message>
    <message>
        <source>PORT</source>
        <translation>PORTA</translation>
    </message>
    <message>
        <source>DIR</source>
        <translation>PASTA</translation>
    </message>
    <message>
        <source>URL</source>
        <translation>URL</translation>
    </message>
    <message>
        <source>COMMAND</source>
        <translation>COMANDO</translation>
    </message>
    <message>
        <source>WHEN</source>
        <translation>QUANDO</translation>
    </message>
    <message>
        <source>TYPE</source>
        <translation>TIPO</translation>
    </message>
    <message>
        <source>STATUS</source>
        <translation>STATUS</translation>
    </message>
    <message>
        <source>ID</source>
        <translation>ID</translation>
    </message>
    <message>
        <source>TEXT</source>
        <translation>TEXTO</translation>
    </message>
    <message>
        <source>FILE</source>
        <translation>ARQUIVO</translation>
    </message>
    <message>
        <source>ADDRESS</source>
        <translation>ENDEREÇO</translation>
    </message>
    <message>
        <source>FD</source>
        <translation>FD</translation>
    </message>
    <message>
        <source>HOST</source>
        <translation>HOST</translation>
    </message>
    <message>
        <source>PEM</source>
        <translation>PEM</translation>
    </message>
    <message>
        <source>S</source>
        <translation>S</translation>
    </message>
    <message>
        <source>N</source>
        <translation>N</translation>
    </message>
    <message>
        <source>NAME[=VALUE]</source>
        <translation>NOME[=VALOR]</translation>
    </message>
    <message>
        <source>NAME=VALUE</source>
        <translation>NOME=VALOR</translation>
    </message>
    <message>
        <source>ACTION</source>
        <translation>AÇÃO</translation>
    </message>
    <message>
        <source>LANG</source>
        <translation>IDIOMA</translation>
    </message>
</context>
<context>
    <name>ProblemBanner</name>
    <message>
        <source>Try &amp;again</source>
        <translation>&amp;Tentar de novo</translation>
    </message>
    <message>
        <source>The terminal cannot reach the payment service, so no sale can be charged now. Check the internet connection and the credentials in Settings.</source>
        <translation>O terminal não consegue falar com o serviço de pagamentos, então nenhuma venda pode ser cobrada agora. Confira a conexão com a internet e as credenciais em Configurações.</translation>
    </message>
    <message>
        <source>The card form did not load, so cards cannot be typed now. Check the internet connection, then try again.</source>
        <translation>O formulário do cartão não carregou, então não dá para digitar cartões agora. Confira a conexão com a internet e tente de novo.</translation>
    </message>
    <message>
        <source>Payment notifications cannot arrive (the inbox did not start). Sales still work; their final status is asked of the service instead.</source>
        <translation>As notificações de pagamento não podem chegar (a caixa de entrada não iniciou). As vendas continuam funcionando; o status final é consultado no serviço.</translation>
    </message>
    <message>
        <source>Payment notifications are not arriving. Sales still work; their final status is asked of the service instead.</source>
        <translation>As notificações de pagamento não estão chegando. As vendas continuam funcionando; o status final é consultado no serviço.</translation>
    </message>
    <message>
        <source>The shop&apos;s shared database does not answer, so no sale can be charged now and payment notifications cannot be stored. Check the database server and the network; the terminal goes on by itself once it answers.</source>
        <translation>O banco de dados compartilhado da loja não responde, então nenhuma venda pode ser cobrada agora e as notificações de pagamento não podem ser gravadas. Verifique o servidor do banco de dados e a rede; o terminal volta a funcionar sozinho assim que ele responder.</translation>
    </message>
    <message>
        <source>The payment service does not answer, so no sale can be charged now. Check the internet connection.</source>
        <translation>O serviço de pagamento não responde, então nenhuma venda pode ser cobrada agora. Confira a conexão com a internet.</translation>
    </message>
    <message>
        <source>Payment service</source>
        <translation>Serviço de pagamento</translation>
    </message>
    <message>
        <source>The card form&apos;s service does not answer, so cards cannot be typed now. Check the internet connection.</source>
        <translation>O serviço do formulário do cartão não responde, então não dá para digitar cartões agora. Confira a conexão com a internet.</translation>
    </message>
    <message>
        <source>Card form service</source>
        <translation>Serviço do formulário de cartão</translation>
    </message>
</context>
<context>
    <name>ProblemTexts</name>
    <message>
        <source>The secrets are kept only in this computer&apos;s keychain, and none can be used. On Linux install and unlock a Secret Service provider (gnome-keyring or KWallet), then try again.</source>
        <translation>Os segredos ficam só no chaveiro deste computador, e nenhum pode ser usado. No Linux, instale e desbloqueie um provedor Secret Service (gnome-keyring ou KWallet) e tente de novo.</translation>
    </message>
    <message>
        <source>Technical detail: {detail}</source>
        <translation>Detalhe técnico: {detail}</translation>
    </message>
    <message>
        <source>The stored supervisor PIN cannot be read; set the PIN again in Settings.</source>
        <translation>O PIN do supervisor guardado não pode ser lido; defina o PIN de novo em Configurações.</translation>
    </message>
    <message>
        <source>Type only the server&apos;s name or address in Server: the user goes in User and the password in Password.</source>
        <translation>Digite em Servidor só o nome ou o endereço do servidor: o usuário vai em Usuário e a senha em Senha.</translation>
    </message>
    <message>
        <source>The server&apos;s name in Server cannot contain spaces.</source>
        <translation>O nome do servidor em Servidor não pode ter espaços.</translation>
    </message>
    <message>
        <source>The server&apos;s name in Server cannot contain &apos;/&apos; (only a socket folder starts with &apos;/&apos;).</source>
        <translation>O nome do servidor em Servidor não pode ter &apos;/&apos; (só uma pasta de socket começa com &apos;/&apos;).</translation>
    </message>
    <message>
        <source>Server holds a &apos;:&apos; but is not an IPv6 address: type the port in Port, not after the server&apos;s name.</source>
        <translation>Servidor tem um &apos;:&apos; mas não é um endereço IPv6: digite a porta em Porta, não depois do nome do servidor.</translation>
    </message>
</context>
<context>
    <name>QrNotice</name>
    <message>
        <source>The {kind} QR of charge {id}, no longer on screen, was paid: the money is in. Refund it from the History if the sale was paid another way.</source>
        <translation>O QR {kind} da cobrança {id}, que já não estava na tela, foi pago: o dinheiro entrou. Estorne-o pelo Histórico se a venda tiver sido paga de outra forma.</translation>
    </message>
    <message>
        <source>The {kind} QR of charge {id} was paid after it had ended: the money is in. Refund it from the History if the sale was paid another way.</source>
        <translation>O QR {kind} da cobrança {id} foi pago depois de encerrado: o dinheiro entrou. Estorne-o pelo Histórico se a venda foi paga de outra forma.</translation>
    </message>
</context>
<context>
    <name>QrPanel</name>
    <message>
        <source>Expires in {time}</source>
        <translation>Expira em {time}</translation>
    </message>
    <message>
        <source>Awaiting payment…</source>
        <translation>Aguardando pagamento…</translation>
    </message>
    <message>
        <source>Paid</source>
        <translation>Pago</translation>
    </message>
    <message>
        <source>Expired</source>
        <translation>Expirado</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>Cancelado</translation>
    </message>
    <message>
        <source>Partially refunded</source>
        <translation>Estornado em parte</translation>
    </message>
    <message>
        <source>Refunded</source>
        <translation>Estornado</translation>
    </message>
    <message>
        <source>Not paid: refused</source>
        <translation>Não pago: recusado</translation>
    </message>
    <message>
        <source>PIX</source>
        <translation>PIX</translation>
    </message>
    <message>
        <source>PicPay</source>
        <translation>PicPay</translation>
    </message>
    <message>
        <source>Copy and paste code</source>
        <translation>Código copia e cola</translation>
    </message>
    <message>
        <source>C&amp;opy</source>
        <translation>C&amp;opiar</translation>
    </message>
    <message>
        <source>Simulate the customer&apos;s payment</source>
        <translation>Simular pagamento do cliente</translation>
    </message>
    <message>
        <source>New &amp;QR</source>
        <translation>Novo &amp;QR</translation>
    </message>
    <message>
        <source>&amp;Back to the sale</source>
        <translation>&amp;Voltar à venda</translation>
    </message>
    <message>
        <source>&amp;Receipt</source>
        <translation>&amp;Comprovante</translation>
    </message>
    <message>
        <source>&amp;New sale (F2)</source>
        <translation>&amp;Nova venda (F2)</translation>
    </message>
    <message>
        <source>The QR expired unpaid. The sale is free: make a new QR, or go back to the sale to take a card (Ctrl+1) or cash.</source>
        <translation>O QR expirou sem pagamento. A venda está livre: gere um novo QR, ou volte à venda para aceitar cartão (Ctrl+1) ou dinheiro.</translation>
    </message>
    <message>
        <source>The QR was cancelled unpaid. The sale is free: make a new QR, or go back to the sale to take a card (Ctrl+1) or cash.</source>
        <translation>O QR foi cancelado sem pagamento. A venda está livre: gere um novo QR, ou volte à venda para aceitar cartão (Ctrl+1) ou dinheiro.</translation>
    </message>
    <message>
        <source>No QR image</source>
        <translation>Sem imagem do QR</translation>
    </message>
    <message>
        <source>{kind} QR · charge {id}</source>
        <translation>QR {kind} · cobrança {id}</translation>
    </message>
    <message>
        <source>Cancel Q&amp;R</source>
        <translation>Cancelar &amp;QR</translation>
    </message>
    <message>
        <source>End-to-end id {id}</source>
        <translation>Identificador fim a fim {id}</translation>
    </message>
    <message>
        <source>Show the QR to the customer; the screen changes when the payment lands.</source>
        <translation>Mostre o QR ao cliente; a tela muda quando o pagamento chegar.</translation>
    </message>
    <message>
        <source>The customer scans the QR or pastes the code in their bank&apos;s app; the screen changes when the payment lands.</source>
        <translation>O cliente lê o QR ou cola o código no app do banco; a tela muda quando o pagamento chegar.</translation>
    </message>
    <message>
        <source>Expiring — asking the service…</source>
        <translation>Expirando — consultando o serviço…</translation>
    </message>
    <message>
        <source>This service does not cancel an unpaid QR: it expires by itself. If the customer pays before that, refund it from the History tab.</source>
        <translation>Este serviço não cancela um QR não pago: ele expira sozinho. Se o cliente pagar antes disso, estorne pela aba Histórico.</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>Copiado</translation>
    </message>
</context>
<context>
    <name>QrRefund</name>
    <message>
        <source>Cancel Q&amp;R…</source>
        <translation>Cancelar &amp;QR…</translation>
    </message>
    <message>
        <source>Cancel QR</source>
        <translation>Cancelar QR</translation>
    </message>
    <message>
        <source>Cancel the {kind} QR of charge {id}: the customer can no longer pay it. Nothing was paid. A payment the customer sent just before would still show here and could be refunded.</source>
        <translation>Cancelar o QR {kind} da cobrança {id}: o cliente não poderá mais pagá-lo. Nada foi pago. Um pagamento que o cliente tenha enviado logo antes ainda apareceria aqui e poderia ser estornado.</translation>
    </message>
    <message>
        <source>Refund</source>
        <translation>Estorno</translation>
    </message>
    <message>
        <source>Refund charge {id}: the money goes back to the customer who paid the {kind} QR; this cannot be undone.</source>
        <translation>Estornar a cobrança {id}: o dinheiro volta para o cliente que pagou o QR {kind}; não há como desfazer.</translation>
    </message>
</context>
<context>
    <name>QrSettingsBox</name>
    <message>
        <source>PIX, PicPay and customer display</source>
        <translation>PIX, PicPay e tela do cliente</translation>
    </message>
    <message>
        <source>How long the customer has to pay a PIX QR (10 minutes at least).</source>
        <translation>Quanto tempo o cliente tem para pagar um QR PIX (no mínimo 10 minutos).</translation>
    </message>
    <message>
        <source>Show a customer display window</source>
        <translation>Mostrar uma janela para o cliente</translation>
    </message>
    <message>
        <source>The customer display opens full screen on a second screen facing the customer, by itself as soon as one is connected, and only this option closes it. With only one screen it is not opened: the customer scans the QR on the shop&apos;s screen.</source>
        <translation>A tela do cliente abre em tela cheia num segundo monitor voltado para o cliente, sozinha assim que ele é conectado, e só esta opção a fecha. Com um só monitor ela não é aberta: o cliente escaneia o QR na tela da loja.</translation>
    </message>
    <message>
        <source>PIX QR valid for</source>
        <translation>QR PIX válido por</translation>
    </message>
    <message>
        <source>On screen</source>
        <translation>Na tela</translation>
    </message>
    <message>
        <source>The last screen (a second monitor)</source>
        <translation>A última tela (um segundo monitor)</translation>
    </message>
    <message>
        <source>Unnamed screen</source>
        <translation>Tela sem nome</translation>
    </message>
    <message>
        <source>{name} (not connected)</source>
        <translation>{name} (desconectada)</translation>
    </message>
</context>
<context>
    <name>Reasons</name>
    <message>
        <source>first status of the charge: {status}</source>
        <translation>primeiro status da cobrança: {status}</translation>
    </message>
    <message>
        <source>a later {status} update</source>
        <translation>atualização mais recente com o status {status}</translation>
    </message>
    <message>
        <source>{status} is later in the charge&apos;s life than {current_status}</source>
        <translation>{status} vem depois de {current_status} no ciclo da cobrança</translation>
    </message>
    <message>
        <source>already {current_status}; added details the charge did not have</source>
        <translation>já estava com o status {current_status}; foram acrescentados dados que a cobrança não tinha</translation>
    </message>
    <message>
        <source>{why}; added details the charge did not have</source>
        <translation>{why}; foram acrescentados dados que a cobrança não tinha</translation>
    </message>
    <message>
        <source>already {current_status}; nothing new</source>
        <translation>já estava com o status {current_status}; nada de novo</translation>
    </message>
    <message>
        <source>the charge was denied, which is final; {status} is not applied</source>
        <translation>a cobrança foi negada, o que é definitivo; {status} não é aplicado</translation>
    </message>
    <message>
        <source>{status} comes earlier in a charge&apos;s life than {current_status}; an older input never overwrites a newer state</source>
        <translation>{status} vem antes de {current_status} no ciclo da cobrança; uma informação mais antiga nunca substitui um estado mais recente</translation>
    </message>
    <message>
        <source>{status} happened at {occurred_at}, before the current state ({current_at})</source>
        <translation>{status} ocorreu em {occurred_at}, antes do estado atual ({current_at})</translation>
    </message>
    <message>
        <source>{status} is older than the current {current_status}</source>
        <translation>{status} é mais antigo que o status atual {current_status}</translation>
    </message>
    <message>
        <source>older 3DS result; added the charge id</source>
        <translation>resultado 3DS mais antigo; foi acrescentado o id da cobrança</translation>
    </message>
    <message>
        <source>status {previous_status} → {status}</source>
        <translation>status {previous_status} → {status}</translation>
    </message>
    <message>
        <source>refunded {previous_amount} → {amount}</source>
        <translation>estornado {previous_amount} → {amount}</translation>
    </message>
    <message>
        <source>amount {amount}</source>
        <translation>valor {amount}</translation>
    </message>
    <message>
        <source>service&apos;s charge id {charge}</source>
        <translation>id da cobrança no serviço {charge}</translation>
    </message>
    <message>
        <source>card payment {key}: {status}</source>
        <translation>pagamento com cartão {key}: {status}</translation>
    </message>
    <message>
        <source>card payment {key}: {previous_status} → {status}</source>
        <translation>pagamento com cartão {key}: {previous_status} → {status}</translation>
    </message>
    <message>
        <source>card payment {key}: refunded {previous_amount} → {amount}</source>
        <translation>pagamento com cartão {key}: estornado {previous_amount} → {amount}</translation>
    </message>
    <message>
        <source>attempt for sale {sale} recorded before sending: {amount}, {cards}</source>
        <translation>tentativa da venda {sale} registrada antes do envio: {amount}, {cards}</translation>
    </message>
    <message>
        <source>attempt for sale {sale} recorded before sending: {amount}, {cards}, late capture</source>
        <translation>tentativa da venda {sale} registrada antes do envio: {amount}, {cards}, captura posterior</translation>
    </message>
    <message>
        <source>attempt already {state}; {why}</source>
        <translation>tentativa já em “{state}”; {why}</translation>
    </message>
    <message>
        <source>the service has this charge ({status}); attempt resolved</source>
        <translation>o serviço tem esta cobrança ({status}); tentativa resolvida</translation>
    </message>
    <message>
        <source>{brand} •••• {last_four}</source>
        <translation>{brand} •••• {last_four}</translation>
    </message>
    <message>
        <source>{brand}</source>
        <translation>{brand}</translation>
    </message>
    <message>
        <source>card</source>
        <translation>cartão</translation>
    </message>
    <message>
        <source>{card} in {installments}x</source>
        <translation>{card} em {installments}x</translation>
    </message>
    <message>
        <source>PicPay wallet QR</source>
        <translation>QR da carteira PicPay</translation>
    </message>
    <message>
        <source>PIX QR</source>
        <translation>QR PIX</translation>
    </message>
    <message>
        <source>the QR expires at {expires_at}; asked around its expiry</source>
        <translation>o QR vence às {expires_at}; consultado perto do vencimento</translation>
    </message>
    <message>
        <source>This sale has a QR ({charge}) awaiting payment until {expires_at}. Cancel it or let it expire before charging the sale again.</source>
        <translation>Esta venda tem um QR ({charge}) aguardando pagamento até {expires_at}. Cancele-o ou deixe-o vencer antes de cobrar a venda de novo.</translation>
    </message>
    <message>
        <source>QR created: awaiting payment.</source>
        <translation>QR gerado: aguardando pagamento.</translation>
    </message>
    <message>
        <source>the customer has already paid this QR, so nothing was cancelled; to give the money back, refund it from the History tab</source>
        <translation>o cliente já pagou este QR, então nada foi cancelado; para devolver o dinheiro, estorne pela aba Histórico</translation>
    </message>
    <message>
        <source>the QR no longer awaits payment; there is nothing to cancel</source>
        <translation>o QR não aguarda mais pagamento; não há nada a cancelar</translation>
    </message>
    <message>
        <source>a QR charge has nothing to capture</source>
        <translation>uma cobrança por QR não tem o que capturar</translation>
    </message>
    <message>
        <source>PicPay wallet charge</source>
        <translation>cobrança pela carteira PicPay</translation>
    </message>
    <message>
        <source>PIX charge</source>
        <translation>cobrança PIX</translation>
    </message>
    <message>
        <source>the charge has no status yet</source>
        <translation>a cobrança ainda não tem status</translation>
    </message>
    <message>
        <source>{status} is not final</source>
        <translation>{status} não é um status definitivo</translation>
    </message>
    <message>
        <source>expecting the notification of {status}</source>
        <translation>aguardando a notificação de {status}</translation>
    </message>
    <message>
        <source>scheduled check</source>
        <translation>verificação agendada</translation>
    </message>
    <message>
        <source>The result of charge {charge} is not known yet; the terminal is asking the service. Charging this sale again could charge the customer twice, so wait until it is known.</source>
        <translation>O resultado da cobrança {charge} ainda não é conhecido; o terminal está consultando o serviço. Cobrar esta venda de novo poderia cobrar o cliente duas vezes: aguarde o resultado.</translation>
    </message>
    <message>
        <source>This sale was already charged ({charge}, {status}). Refund it before charging the sale again.</source>
        <translation>Esta venda já foi cobrada ({charge}, {status}). Estorne-a antes de cobrar a venda de novo.</translation>
    </message>
    <message>
        <source>A new charge for this sale is refused.</source>
        <translation>Uma nova cobrança para esta venda foi recusada.</translation>
    </message>
    <message>
        <source>recorded before sending</source>
        <translation>registrada antes do envio</translation>
    </message>
    <message>
        <source>the terminal stopped waiting for the reply; the service will be asked</source>
        <translation>o terminal parou de esperar a resposta; o serviço será consultado</translation>
    </message>
    <message>
        <source>not charged: {error}</source>
        <translation>não cobrado: {error}</translation>
    </message>
    <message>
        <source>not charged: the service has no charge ({error})</source>
        <translation>não cobrado: o serviço não tem a cobrança ({error})</translation>
    </message>
    <message>
        <source>{error}; the service answered, so one query settles it</source>
        <translation>{error}; o serviço respondeu, então uma consulta resolve</translation>
    </message>
    <message>
        <source>{error}; the charge may exist: it will be found by asking, never sent again</source>
        <translation>{error}; a cobrança pode existir: ela será localizada por consulta, nunca enviada de novo</translation>
    </message>
    <message>
        <source>The result is not known yet ({error}). The terminal keeps asking the service and refuses another charge for this sale until it knows.</source>
        <translation>O resultado ainda não é conhecido ({error}). O terminal continua consultando o serviço e recusa outra cobrança desta venda até saber.</translation>
    </message>
    <message>
        <source>The result is not known yet ({error}). The terminal keeps asking the service and refuses another charge for this sale until it knows (last query: {last_error}).</source>
        <translation>O resultado ainda não é conhecido ({error}). O terminal continua consultando o serviço e recusa outra cobrança desta venda até saber (última consulta: {last_error}).</translation>
    </message>
    <message>
        <source>Approved: {status}.</source>
        <translation>Aprovada: {status}.</translation>
    </message>
    <message>
        <source>Denied: the card was not charged.</source>
        <translation>Negada: o cartão não foi cobrado.</translation>
    </message>
    <message>
        <source>Pending: the service has not decided yet (for example a 3DS challenge); the result arrives by notification or by asking the service.</source>
        <translation>Pendente: o serviço ainda não decidiu (por exemplo, um desafio 3DS); o resultado chega por notificação ou por consulta ao serviço.</translation>
    </message>
    <message>
        <source>The service reports {status}.</source>
        <translation>O serviço informa: {status}.</translation>
    </message>
    <message>
        <source>Not charged: an internal error ({kind}).</source>
        <translation>Não cobrado: um erro interno ({kind}).</translation>
    </message>
    <message>
        <source>Not charged: the shop&apos;s shared store does not answer (the server is down, or the network is in the way), so the attempt cannot be recorded. Nothing was sent.</source>
        <translation>Não cobrado: o banco compartilhado da loja não responde (o servidor está fora do ar ou a rede está com problema), então a tentativa não pode ser registrada. Nada foi enviado.</translation>
    </message>
    <message>
        <source>Not charged: the shop&apos;s shared store refused the login (user or password). Nothing was sent.</source>
        <translation>Não cobrado: o banco compartilhado da loja recusou o acesso (usuário ou senha). Nada foi enviado.</translation>
    </message>
    <message>
        <source>Not charged: the shop&apos;s shared store was upgraded by a newer checkout-desktop; upgrade this terminal. Nothing was sent.</source>
        <translation>Não cobrado: o banco compartilhado da loja foi atualizado por um checkout-desktop mais novo; atualize este terminal. Nada foi enviado.</translation>
    </message>
    <message>
        <source>changed in the shop&apos;s shared store (another counter)</source>
        <translation>alterada no banco compartilhado da loja (outro caixa)</translation>
    </message>
    <message>
        <source>Not charged: the store cannot record the attempt ({error}). Nothing was sent.</source>
        <translation>Não cobrado: o banco de dados não consegue registrar a tentativa ({error}). Nada foi enviado.</translation>
    </message>
    <message>
        <source>the service has the charge ({status})</source>
        <translation>o serviço tem a cobrança ({status})</translation>
    </message>
    <message>
        <source>a notification shows the service has the charge ({status})</source>
        <translation>uma notificação mostra que o serviço tem a cobrança ({status})</translation>
    </message>
    <message>
        <source>capture of {amount} requested</source>
        <translation>captura de {amount} solicitada</translation>
    </message>
    <message>
        <source>capture failed: {error}</source>
        <translation>a captura falhou: {error}</translation>
    </message>
    <message>
        <source>capture failed: {error}; the charge will be queried to learn whether it happened</source>
        <translation>a captura falhou: {error}; a cobrança será consultada para saber se ela ocorreu</translation>
    </message>
    <message>
        <source>capture outcome unknown</source>
        <translation>resultado da captura desconhecido</translation>
    </message>
    <message>
        <source>capture of {amount}</source>
        <translation>captura de {amount}</translation>
    </message>
    <message>
        <source>refund of {amount} requested</source>
        <translation>estorno de {amount} solicitado</translation>
    </message>
    <message>
        <source>refund failed: {error}</source>
        <translation>o estorno falhou: {error}</translation>
    </message>
    <message>
        <source>refund failed: {error}; the charge will be queried to learn whether it happened</source>
        <translation>o estorno falhou: {error}; a cobrança será consultada para saber se ele ocorreu</translation>
    </message>
    <message>
        <source>refund outcome unknown</source>
        <translation>resultado do estorno desconhecido</translation>
    </message>
    <message>
        <source>refund of {amount}</source>
        <translation>estorno de {amount}</translation>
    </message>
    <message>
        <source>cancellation of {amount}</source>
        <translation>cancelamento de {amount}</translation>
    </message>
    <message>
        <source>{operation}: {step}</source>
        <translation>{operation}: {step}</translation>
    </message>
    <message>
        <source>{operation}: {step} ({detail})</source>
        <translation>{operation}: {step} ({detail})</translation>
    </message>
    <message>
        <source>requested</source>
        <translation>pedido registrado</translation>
    </message>
    <message>
        <source>sent to the service</source>
        <translation>enviado ao serviço</translation>
    </message>
    <message>
        <source>confirmed by the service</source>
        <translation>confirmado pelo serviço</translation>
    </message>
    <message>
        <source>outcome unknown; the charge will be queried, never sent again</source>
        <translation>resultado desconhecido; a cobrança será consultada, nunca enviada de novo</translation>
    </message>
    <message>
        <source>refused by the service</source>
        <translation>recusado pelo serviço</translation>
    </message>
    <message>
        <source>not sent: it never reached the service</source>
        <translation>não enviado: não chegou ao serviço</translation>
    </message>
    <message>
        <source>not done: the service&apos;s figures show no such change</source>
        <translation>não realizado: os valores do serviço não mostram essa mudança</translation>
    </message>
    <message>
        <source>not visible at the service yet; it will be asked again, never sent again</source>
        <translation>ainda não aparece no serviço; será consultado de novo, nunca enviado de novo</translation>
    </message>
    <message>
        <source>{status}, refunded {refunded_amount} of {amount}</source>
        <translation>{status}, estornado {refunded_amount} de {amount}</translation>
    </message>
    <message>
        <source>{status}, refunded {refunded_amount}</source>
        <translation>{status}, estornado {refunded_amount}</translation>
    </message>
    <message>
        <source>{status}, {amount}</source>
        <translation>{status}, {amount}</translation>
    </message>
    <message>
        <source>the terminal stopped waiting for the reply</source>
        <translation>o terminal parou de esperar a resposta</translation>
    </message>
    <message>
        <source>before sending: asked the service</source>
        <translation>antes do envio: serviço consultado</translation>
    </message>
    <message>
        <source>after the refusal: asked the service</source>
        <translation>após a recusa: serviço consultado</translation>
    </message>
    <message>
        <source>daily check: asked the service</source>
        <translation>verificação diária: serviço consultado</translation>
    </message>
    <message>
        <source>the service shows no amount for the charge</source>
        <translation>o serviço não mostra valor para a cobrança</translation>
    </message>
    <message>
        <source>the amount must be at least 1 centavo</source>
        <translation>o valor precisa ser de pelo menos 1 centavo</translation>
    </message>
    <message>
        <source>only a pre-authorized charge can be captured, and this one is {status}</source>
        <translation>só uma cobrança pré-autorizada pode ser capturada, e esta está {status}</translation>
    </message>
    <message>
        <source>the amount exceeds the {amount} authorized</source>
        <translation>o valor passa dos {amount} autorizados</translation>
    </message>
    <message>
        <source>a charge not yet captured is canceled in full ({amount})</source>
        <translation>uma cobrança ainda não capturada é cancelada por inteiro ({amount})</translation>
    </message>
    <message>
        <source>it is already fully refunded</source>
        <translation>ela já foi estornada por inteiro</translation>
    </message>
    <message>
        <source>a charge that is {status} has nothing to refund</source>
        <translation>uma cobrança {status} não tem o que estornar</translation>
    </message>
    <message>
        <source>the amount exceeds the {amount} still refundable</source>
        <translation>o valor passa dos {amount} que ainda podem ser estornados</translation>
    </message>
    <message>
        <source>refused</source>
        <translation>recusado</translation>
    </message>
    <message>
        <source>charge {charge} has no known amount; give one</source>
        <translation>a cobrança {charge} não tem valor conhecido; informe um</translation>
    </message>
    <message>
        <source>charge {charge} is not in this terminal&apos;s records; query it first</source>
        <translation>a cobrança {charge} não está nos registros deste terminal; consulte-a primeiro</translation>
    </message>
    <message>
        <source>charge {charge} was made in another environment ({profile}); it can only be refunded, captured or queried there</source>
        <translation>a cobrança {charge} foi feita em outro ambiente ({profile}); só pode ser estornada, capturada ou consultada lá</translation>
    </message>
    <message>
        <source>charge {charge} was not made by this terminal (only notifications told of it); nothing is sent about it</source>
        <translation>a cobrança {charge} não foi feita por este terminal (só as notificações falaram dela); nada é enviado sobre ela</translation>
    </message>
    <message>
        <source>a refund of charge {charge} needs the supervisor PIN</source>
        <translation>o estorno da cobrança {charge} precisa do PIN do supervisor</translation>
    </message>
    <message>
        <source>charge {charge} was authorized on an earlier day: its capture needs the supervisor PIN</source>
        <translation>a cobrança {charge} foi autorizada em outro dia: a captura precisa do PIN do supervisor</translation>
    </message>
    <message>
        <source>ending attempt {charge} needs the supervisor PIN</source>
        <translation>encerrar a tentativa {charge} precisa do PIN do supervisor</translation>
    </message>
    <message>
        <source>wrong supervisor PIN for charge {charge}; nothing was sent</source>
        <translation>PIN do supervisor errado para a cobrança {charge}; nada foi enviado</translation>
    </message>
    <message>
        <source>the supervisor PIN cannot be checked: {error}</source>
        <translation>o PIN do supervisor não pode ser conferido: {error}</translation>
    </message>
    <message>
        <source>at start-up</source>
        <translation>na inicialização</translation>
    </message>
    <message>
        <source>on demand</source>
        <translation>a pedido</translation>
    </message>
    <message>
        <source>queried on demand</source>
        <translation>consultada a pedido</translation>
    </message>
    <message>
        <source>{trigger}: asked the service</source>
        <translation>{trigger}: serviço consultado</translation>
    </message>
    <message>
        <source>{trigger} ({why})</source>
        <translation>{trigger} ({why})</translation>
    </message>
    <message>
        <source>{context}: {why}</source>
        <translation>{context}: {why}</translation>
    </message>
    <message>
        <source>{trigger}: could not ask the service ({error}); will ask again</source>
        <translation>{trigger}: não foi possível consultar o serviço ({error}); será consultado de novo</translation>
    </message>
    <message>
        <source>{trigger}: the service answered the request and has no such charge: nothing was charged</source>
        <translation>{trigger}: o serviço respondeu ao pedido e não tem essa cobrança: nada foi cobrado</translation>
    </message>
    <message>
        <source>{trigger}: still no such charge {seconds} s after the attempt, past the point where it could appear: nothing was charged</source>
        <translation>{trigger}: a cobrança ainda não existe {seconds} s após a tentativa, depois do prazo em que poderia aparecer: nada foi cobrado</translation>
    </message>
    <message>
        <source>{trigger}: the service has no such charge yet ({seconds} s after the attempt); the request may still be in progress there, so it will be asked again, never sent again</source>
        <translation>{trigger}: o serviço ainda não tem essa cobrança ({seconds} s após a tentativa); o pedido pode estar em andamento lá, então será consultado de novo, nunca enviado de novo</translation>
    </message>
    <message>
        <source>{trigger} ({why}): the service answered: {error}</source>
        <translation>{trigger} ({why}): o serviço respondeu: {error}</translation>
    </message>
    <message>
        <source>{trigger} ({why}): could not ask the service: {error}</source>
        <translation>{trigger} ({why}): não foi possível consultar o serviço: {error}</translation>
    </message>
    <message>
        <source>access token request</source>
        <translation>pedido de token de acesso</translation>
    </message>
    <message>
        <source>charge request</source>
        <translation>pedido de cobrança</translation>
    </message>
    <message>
        <source>charge</source>
        <translation>cobrança</translation>
    </message>
    <message>
        <source>charge query</source>
        <translation>consulta da cobrança</translation>
    </message>
    <message>
        <source>capture</source>
        <translation>captura</translation>
    </message>
    <message>
        <source>refund</source>
        <translation>estorno</translation>
    </message>
    <message>
        <source>authenticated by the bank</source>
        <translation>aprovada pelo banco</translation>
    </message>
    <message>
        <source>rejected by the bank</source>
        <translation>recusada pelo banco</translation>
    </message>
    <message>
        <source>unavailable</source>
        <translation>indisponível</translation>
    </message>
    <message>
        <source>cancelled at the counter</source>
        <translation>cancelada no balcão</translation>
    </message>
    <message>
        <source>without an answer in time</source>
        <translation>sem resposta a tempo</translation>
    </message>
    <message>
        <source>ended: the bank&apos;s page tried to open another address</source>
        <translation>encerrada: a página do banco tentou abrir outro endereço</translation>
    </message>
    <message>
        <source>not charged: 3DS authentication {why}; a card is never charged without 3DS after that</source>
        <translation>não cobrado: autenticação 3DS {why}; depois disso o cartão nunca é cobrado sem 3DS</translation>
    </message>
    <message>
        <source>impossible with this service, which asks for the card&apos;s own data (the terminal only ever has the card&apos;s one-time token)</source>
        <translation>impossível com este serviço, que pede os dados do próprio cartão (o terminal só recebe o token de uso único do cartão)</translation>
    </message>
    <message>
        <source>3DS setup</source>
        <translation>preparação do 3DS</translation>
    </message>
    <message>
        <source>3DS enrollment</source>
        <translation>inscrição no 3DS</translation>
    </message>
    <message>
        <source>3DS status query</source>
        <translation>consulta do status do 3DS</translation>
    </message>
    <message>
        <source>3DS charge</source>
        <translation>cobrança 3DS</translation>
    </message>
    <message>
        <source>3DS authentication recorded before sending its setup (card token only)</source>
        <translation>autenticação 3DS registrada antes de enviar a preparação (só o token do cartão)</translation>
    </message>
    <message>
        <source>3DS setup answered (service charge {charge}); enrollment sent with the browser data</source>
        <translation>preparação do 3DS respondida (cobrança do serviço {charge}); inscrição enviada com os dados do navegador</translation>
    </message>
    <message>
        <source>3DS enrollment answered: {status}</source>
        <translation>inscrição no 3DS respondida: {status}</translation>
    </message>
    <message>
        <source>the bank asks the customer for a confirmation; the challenge is on screen</source>
        <translation>o banco pede uma confirmação ao cliente; o desafio está na tela</translation>
    </message>
    <message>
        <source>3DS result: {why}, asked of the service</source>
        <translation>resultado do 3DS: {why}, consultado no serviço</translation>
    </message>
    <message>
        <source>3DS authentication {why}: charging without 3DS, as the settings say</source>
        <translation>autenticação 3DS {why}: cobrando sem 3DS, como dizem as configurações</translation>
    </message>
    <message>
        <source>not charged: 3DS authentication {why}, and the settings refuse a card without it</source>
        <translation>não cobrado: autenticação 3DS {why}, e as configurações recusam o cartão sem ela</translation>
    </message>
    <message>
        <source>not applied: an internal error of the terminal (see the technical detail)</source>
        <translation>não aplicada: um erro interno do terminal (veja o detalhe técnico)</translation>
    </message>
    <message>
        <source>first news of a charge this terminal did not make: {status}; see it in History › Other environments</source>
        <translation>primeira notícia de uma cobrança que este terminal não fez: {status}; veja em Histórico › Outros ambientes</translation>
    </message>
    <message>
        <source>a charge this terminal did not make ({why}); see it in History › Other environments</source>
        <translation>uma cobrança que este terminal não fez ({why}); veja em Histórico › Outros ambientes</translation>
    </message>
    <message>
        <source>deliveries not stored since the last check: {count} ({error})</source>
        <translation>entregas não gravadas desde a última verificação: {count} ({error})</translation>
    </message>
    <message>
        <source>authenticated; the charge is recorded before sending</source>
        <translation>autenticado; a cobrança é registrada antes de ser enviada</translation>
    </message>
    <message>
        <source>challenge result: {status}</source>
        <translation>resultado do desafio: {status}</translation>
    </message>
    <message>
        <source>challenge result: {status} (paresStatus {pares})</source>
        <translation>resultado do desafio: {status} (paresStatus {pares})</translation>
    </message>
    <message>
        <source>{status} already recorded</source>
        <translation>{status} já registrado</translation>
    </message>
    <message>
        <source>{status} is older than the recorded {current_status}</source>
        <translation>{status} é mais antigo que o registrado ({current_status})</translation>
    </message>
    <message>
        <source>{previous_status} → {status}</source>
        <translation>{previous_status} → {status}</translation>
    </message>
    <message>
        <source>the service does not cancel an unpaid QR; it expires by itself</source>
        <translation>o serviço não cancela um QR não pago; ele expira sozinho</translation>
    </message>
    <message>
        <source>right after sending</source>
        <translation>logo após o envio</translation>
    </message>
    <message>
        <source>{status}, from a notification</source>
        <translation>{status}, por notificação</translation>
    </message>
    <message>
        <source>3DS authentication unavailable: {error}</source>
        <translation>autenticação 3DS indisponível: {error}</translation>
    </message>
    <message>
        <source>3DS needs the card page&apos;s browser data, which did not come</source>
        <translation>o 3DS precisa dos dados do navegador da página do cartão, que não chegaram</translation>
    </message>
    <message>
        <source>the terminal stopped during 3DS ({step}) before the charge was sent: nothing was charged</source>
        <translation>o terminal parou durante o 3DS ({step}) antes de enviar a cobrança: nada foi cobrado</translation>
    </message>
    <message>
        <source>the terminal stopped after sending the charge ({step}); the service is asked, never sent again</source>
        <translation>o terminal parou depois de enviar a cobrança ({step}); o serviço é consultado, nunca reenviado</translation>
    </message>
    <message>
        <source>the charge id {value} is not valid: 6 to 36 letters, digits or hyphens</source>
        <translation>o id da cobrança {value} não é válido: de 6 a 36 letras, dígitos ou hífens</translation>
    </message>
    <message>
        <source>an amount is a whole number of centavos, at least 1 (got {value})</source>
        <translation>um valor é um número inteiro de centavos, no mínimo 1 (veio {value})</translation>
    </message>
    <message>
        <source>{operation}: the service at {url} cannot be reached; nothing was sent</source>
        <translation>{operation}: não foi possível acessar o serviço em {url}; nada foi enviado</translation>
    </message>
    <message>
        <source>{operation}: no reply within {seconds} s; the result is unknown until the service is asked</source>
        <translation>{operation}: sem resposta em {seconds} s; o resultado é desconhecido até o serviço ser consultado</translation>
    </message>
    <message>
        <source>{operation}: the connection broke before the reply; the result is unknown until the service is asked</source>
        <translation>{operation}: a conexão caiu antes da resposta; o resultado é desconhecido até o serviço ser consultado</translation>
    </message>
    <message>
        <source>{operation}: the reply does not match the documented format ({details})</source>
        <translation>{operation}: a resposta não segue o formato documentado ({details})</translation>
    </message>
    <message>
        <source>{operation}: the token reply does not match the documented format ({details})</source>
        <translation>{operation}: a resposta do token não segue o formato documentado ({details})</translation>
    </message>
    <message>
        <source>{operation}: the reply is about charge {got}, not {expected}</source>
        <translation>{operation}: a resposta é sobre a cobrança {got}, não {expected}</translation>
    </message>
    <message>
        <source>{operation}: the service answered HTTP {http_code} with a web page instead of data, usually a firewall or proxy block page; the service may refuse calls from this network or country, or the address points at a web site</source>
        <translation>{operation}: o serviço respondeu HTTP {http_code} com uma página web em vez de dados, em geral uma página de bloqueio de firewall ou proxy; o serviço pode recusar chamadas desta rede ou país, ou o endereço aponta para um site</translation>
    </message>
    <message>
        <source>{operation}: the service answered HTTP {http_code} with a web page (“{title}”) instead of data, usually a firewall or proxy block page; the service may refuse calls from this network or country, or the address points at a web site</source>
        <translation>{operation}: o serviço respondeu HTTP {http_code} com uma página web (“{title}”) em vez de dados, em geral uma página de bloqueio de firewall ou proxy; o serviço pode recusar chamadas desta rede ou país, ou o endereço aponta para um site</translation>
    </message>
    <message>
        <source>{operation}: the service answered HTTP {http_code} with an empty body</source>
        <translation>{operation}: o serviço respondeu HTTP {http_code} sem conteúdo</translation>
    </message>
    <message>
        <source>{operation}: the service answered HTTP {http_code} with {content_type}, not JSON</source>
        <translation>{operation}: o serviço respondeu HTTP {http_code} com {content_type}, não JSON</translation>
    </message>
    <message>
        <source>{operation}: the service refused the request (HTTP {http_code}): {detail}</source>
        <translation>{operation}: o serviço recusou o pedido (HTTP {http_code}): {detail}</translation>
    </message>
    <message>
        <source>{operation}: the service refused the access token (HTTP {http_code}): {detail}</source>
        <translation>{operation}: o serviço recusou o token de acesso (HTTP {http_code}): {detail}</translation>
    </message>
    <message>
        <source>{operation}: the service has no such charge (HTTP {http_code}): {detail}</source>
        <translation>{operation}: o serviço não tem essa cobrança (HTTP {http_code}): {detail}</translation>
    </message>
    <message>
        <source>{operation}: the service refused the content type (HTTP {http_code}): {detail}</source>
        <translation>{operation}: o serviço recusou o tipo de conteúdo (HTTP {http_code}): {detail}</translation>
    </message>
    <message>
        <source>{operation}: the service failed (HTTP {http_code}): {detail}</source>
        <translation>{operation}: o serviço falhou (HTTP {http_code}): {detail}</translation>
    </message>
    <message>
        <source>{operation}: the service answered with an error (HTTP {http_code}): {detail}</source>
        <translation>{operation}: o serviço respondeu com um erro (HTTP {http_code}): {detail}</translation>
    </message>
    <message>
        <source>no error detail in the reply</source>
        <translation>a resposta não traz detalhes do erro</translation>
    </message>
    <message>
        <source>{words}</source>
        <translation>{words}</translation>
    </message>
    <message>
        <source>{business}: {words}</source>
        <translation>{business}: {words}</translation>
    </message>
    <message>
        <source>service code {business_code}</source>
        <translation>código do serviço {business_code}</translation>
    </message>
    <message>
        <source>the service has no such charge</source>
        <translation>o serviço não tem essa cobrança</translation>
    </message>
    <message>
        <source>this charge number was already used</source>
        <translation>este número de cobrança já foi usado</translation>
    </message>
    <message>
        <source>the charge&apos;s state does not allow this</source>
        <translation>a situação da cobrança não permite isso</translation>
    </message>
    <message>
        <source>the amount is above what the charge allows</source>
        <translation>o valor passa do que a cobrança permite</translation>
    </message>
    <message>
        <source>the card token is not valid (used, expired or unknown); enter the card again</source>
        <translation>o token do cartão não é válido (já usado, expirado ou desconhecido); digite o cartão de novo</translation>
    </message>
    <message>
        <source>the service found no card in the request</source>
        <translation>o serviço não encontrou o cartão no pedido</translation>
    </message>
    <message>
        <source>a field the service requires is missing</source>
        <translation>falta um campo que o serviço exige</translation>
    </message>
    <message>
        <source>the service requires the customer&apos;s e-mail: type it and charge again ({words})</source>
        <translation>o serviço exige o e-mail do cliente: digite-o e cobre de novo ({words})</translation>
    </message>
    <message>
        <source>the service refused the customer&apos;s document: {words}</source>
        <translation>o serviço recusou o documento do cliente: {words}</translation>
    </message>
    <message>
        <source>the service refused the customer&apos;s document</source>
        <translation>o serviço recusou o documento do cliente</translation>
    </message>
    <message>
        <source>the request breaks the service&apos;s rules</source>
        <translation>o pedido não segue as regras do serviço</translation>
    </message>
    <message>
        <source>the service refused the access token</source>
        <translation>o serviço recusou o token de acesso</translation>
    </message>
    <message>
        <source>the service refused the content type</source>
        <translation>o serviço recusou o tipo de conteúdo</translation>
    </message>
    <message>
        <source>the service had an internal error</source>
        <translation>o serviço teve um erro interno</translation>
    </message>
    <message>
        <source>the service found no card token under {tried}; sent once more under {spelling} with the same charge number (a refused request creates nothing)</source>
        <translation>o serviço não encontrou o token do cartão em {tried}; enviado mais uma vez em {spelling} com o mesmo número de cobrança (um pedido recusado não cria nada)</translation>
    </message>
    <message>
        <source>the service reads the card token as {spelling}; the profile keeps this spelling</source>
        <translation>o serviço lê o token do cartão como {spelling}; o perfil guarda esta grafia</translation>
    </message>
    <message>
        <source>{trigger}: the service refused the query ({error}); asking again in {seconds} s, never sending the charge again</source>
        <translation>{trigger}: o serviço recusou a consulta ({error}); nova consulta em {seconds} s, sem nunca reenviar a cobrança</translation>
    </message>
    <message>
        <source>ended by supervisor {supervisor}: {why}; last answer from the service: {last}. The sale is free; the charge was never sent again</source>
        <translation>encerrada pelo supervisor {supervisor}: {why}; última resposta do serviço: {last}. A venda está livre; a cobrança nunca foi reenviada</translation>
    </message>
    <message>
        <source>an error reply of an unknown shape</source>
        <translation>uma resposta de erro em formato desconhecido</translation>
    </message>
    <message>
        <source>{operation}: the service refused a freshly issued access token too ({detail}); the credential may lack the checkout permission or have been revoked</source>
        <translation>{operation}: o serviço recusou também um token de acesso recém-emitido ({detail}); a credencial pode não ter a permissão de checkout ou ter sido revogada</translation>
    </message>
    <message>
        <source>{operation}: the service refused the client id or secret (HTTP {http_code}: {detail}). Check them in Settings → Credentials; a secret stops working 7 days after a new one is generated in the merchant panel, and sandbox and production credentials differ</source>
        <translation>{operation}: o serviço recusou o client id ou o secret (HTTP {http_code}: {detail}). Confira-os em Configurações → Credenciais; um secret deixa de funcionar 7 dias depois que um novo é gerado no painel do lojista, e as credenciais de sandbox e de produção são diferentes</translation>
    </message>
    <message>
        <source>{operation}: the token server answered HTTP {http_code}: {detail}</source>
        <translation>{operation}: o servidor de tokens respondeu HTTP {http_code}: {detail}</translation>
    </message>
    <message>
        <source>{operation}: the token server at {url} cannot be reached; check the network and the environment&apos;s authentication address</source>
        <translation>{operation}: não foi possível acessar o servidor de tokens em {url}; confira a rede e o endereço de autenticação do ambiente</translation>
    </message>
    <message>
        <source>{operation}: the token server did not answer within {seconds} s</source>
        <translation>{operation}: o servidor de tokens não respondeu em {seconds} s</translation>
    </message>
    <message>
        <source>{operation}: the connection to the token server failed</source>
        <translation>{operation}: a conexão com o servidor de tokens falhou</translation>
    </message>
    <message>
        <source>{operation}: the client secret cannot be read: {error}</source>
        <translation>{operation}: não foi possível ler o client secret: {error}</translation>
    </message>
    <message>
        <source>{operation}: the stored credentials break the service&apos;s rules ({details}); enter them again in Settings → Credentials</source>
        <translation>{operation}: as credenciais gravadas não seguem as regras do serviço ({details}); digite-as de novo em Configurações → Credenciais</translation>
    </message>
    <message>
        <source>the service refused a token it had just issued, and this computer&apos;s clock is {seconds} s behind the service&apos;s clock; set the system clock (enable network time) and try again</source>
        <translation>o serviço recusou um token que acabara de emitir, e o relógio deste computador está {seconds} s atrasado em relação ao do serviço; acerte o relógio do sistema (ative a hora pela rede) e tente de novo</translation>
    </message>
    <message>
        <source>the service refused a token it had just issued, and this computer&apos;s clock is {seconds} s ahead of the service&apos;s clock; set the system clock (enable network time) and try again</source>
        <translation>o serviço recusou um token que acabara de emitir, e o relógio deste computador está {seconds} s adiantado em relação ao do serviço; acerte o relógio do sistema (ative a hora pela rede) e tente de novo</translation>
    </message>
    <message>
        <source>applied: {why}</source>
        <translation>atualizou a cobrança: {why}</translation>
    </message>
    <message>
        <source>applied</source>
        <translation>atualizou a cobrança</translation>
    </message>
    <message>
        <source>no change: {why}</source>
        <translation>{why}</translation>
    </message>
    <message>
        <source>older, ignored: {why}</source>
        <translation>mais antiga, deixada de lado: {why}</translation>
    </message>
    <message>
        <source>the event-type header says {header} but the body is {body}; the body decided</source>
        <translation>o cabeçalho de tipo de evento diz {header}, mas o corpo é {body}; valeu o corpo</translation>
    </message>
    <message>
        <source>a notification of a type this terminal does not know ({type}); stored as received, not applied to any charge</source>
        <translation>uma notificação de um tipo que este terminal não conhece ({type}); guardada como chegou, sem mudar nenhuma cobrança</translation>
    </message>
    <message>
        <source>a notification without a type; stored as received, not applied to any charge</source>
        <translation>uma notificação sem tipo; guardada como recebida, sem ser aplicada a nenhuma cobrança</translation>
    </message>
    <message>
        <source>a self-test body without a nonce</source>
        <translation>um corpo de autoteste sem nonce</translation>
    </message>
    <message>
        <source>the body does not match the format: {details}</source>
        <translation>o corpo não segue o formato: {details}</translation>
    </message>
    <message>
        <source>the {type} body does not match the format: {details}</source>
        <translation>o corpo {type} não segue o formato: {details}</translation>
    </message>
    <message>
        <source>the body cannot be read</source>
        <translation>o corpo não pode ser lido</translation>
    </message>
    <message>
        <source>the {type} body cannot be read</source>
        <translation>o corpo {type} não pode ser lido</translation>
    </message>
    <message>
        <source>the body is not valid JSON: {error}</source>
        <translation>o corpo não é um JSON válido ({error})</translation>
    </message>
    <message>
        <source>the body is JSON but not an object (got {type})</source>
        <translation>o corpo é JSON, mas não é um objeto (veio {type})</translation>
    </message>
    <message>
        <source>the body is {size} bytes, over the limit of {limit} bytes; the first {limit} bytes are kept</source>
        <translation>o corpo tem {size} bytes, acima do limite de {limit} bytes; os primeiros {limit} bytes foram guardados</translation>
    </message>
    <message>
        <source>the body is over the limit of {limit} bytes; the first {limit} bytes are kept</source>
        <translation>o corpo passa do limite de {limit} bytes; os primeiros {limit} bytes foram guardados</translation>
    </message>
    <message>
        <source>the body did not arrive within {seconds} s ({size} bytes came); what came is kept</source>
        <translation>o corpo não chegou em {seconds} s ({size} bytes chegaram); o que chegou foi guardado</translation>
    </message>
    <message>
        <source>the content type {type} is not JSON; the body is kept</source>
        <translation>o tipo de conteúdo {type} não é JSON; o corpo foi guardado</translation>
    </message>
    <message>
        <source>the body cannot be accepted</source>
        <translation>o corpo não pode ser aceito</translation>
    </message>
    <message>
        <source>the body is nested more than {limit} levels deep; it is kept as received</source>
        <translation>o corpo tem mais de {limit} níveis de aninhamento; foi guardado como chegou</translation>
    </message>
    <message>
        <source>the body holds a number of {digits} digits, over the limit of {limit}; it is kept as received</source>
        <translation>o corpo traz um número de {digits} dígitos, acima do limite de {limit}; foi guardado como chegou</translation>
    </message>
    <message>
        <source>the body&apos;s {field} is not valid Unicode text (a lone surrogate); it is kept as received</source>
        <translation>o campo {field} do corpo não é texto Unicode válido (um substituto isolado); foi guardado como chegou</translation>
    </message>
    <message>
        <source>the body could not be stored as read ({error}); it is kept as received</source>
        <translation>o corpo não pôde ser gravado como foi lido ({error}); foi guardado como chegou</translation>
    </message>
    <message>
        <source>line {line}, column {column}</source>
        <translation>linha {line}, coluna {column}</translation>
    </message>
    <message>
        <source>not UTF-8 text</source>
        <translation>não é texto UTF-8</translation>
    </message>
    <message>
        <source>missing field {field}</source>
        <translation>falta o campo {field}</translation>
    </message>
    <message>
        <source>field {field} is not valid</source>
        <translation>o campo {field} não é válido</translation>
    </message>
    <message>
        <source>and {count} more</source>
        <translation>e mais {count}</translation>
    </message>
    <message>
        <source>not checked yet</source>
        <translation>ainda não verificada</translation>
    </message>
    <message>
        <source>the listener is not running</source>
        <translation>o receptor de notificações não está funcionando</translation>
    </message>
    <message>
        <source>local self-test failed: {problem}</source>
        <translation>o autoteste local falhou: {problem}</translation>
    </message>
    <message>
        <source>no public URL: the listener works locally, but the service cannot reach it</source>
        <translation>sem URL pública: o receptor funciona localmente, mas o serviço não consegue alcançá-lo</translation>
    </message>
    <message>
        <source>the tunnel is not up: {why}</source>
        <translation>o túnel não está ativo: {why}</translation>
    </message>
    <message>
        <source>a self-test through {url} did not arrive: {problem}</source>
        <translation>um autoteste por {url} não chegou: {problem}</translation>
    </message>
    <message>
        <source>the merchant panel holds {registered}; notifications reach this terminal only once it holds {url}</source>
        <translation>o painel do lojista tem {registered}; as notificações só chegam a este terminal quando ele tiver {url}</translation>
    </message>
    <message>
        <source>the merchant panel holds no URL; notifications reach this terminal only once it holds {url}</source>
        <translation>o painel do lojista não tem URL; as notificações só chegam a este terminal quando ele tiver {url}</translation>
    </message>
    <message>
        <source>a self-test through {url} took {seconds} s (over {limit} s)</source>
        <translation>um autoteste por {url} levou {seconds} s (acima de {limit} s)</translation>
    </message>
    <message>
        <source>self-test through {url} arrived</source>
        <translation>o autoteste por {url} chegou</translation>
    </message>
    <message>
        <source>the address answered HTTP {http_code}</source>
        <translation>o endereço respondeu HTTP {http_code}</translation>
    </message>
    <message>
        <source>it was not stored within {seconds} s</source>
        <translation>ele não foi gravado em {seconds} s</translation>
    </message>
    <message>
        <source>the self-test could not be sent</source>
        <translation>não foi possível enviar o autoteste</translation>
    </message>
    <message>
        <source>the card service could not be reached (network, proxy or certificate); nothing was sent</source>
        <translation>não foi possível acessar o serviço de cartões (rede, proxy ou certificado); nada foi enviado</translation>
    </message>
    <message>
        <source>the card form could not be loaded</source>
        <translation>não foi possível carregar o formulário do cartão</translation>
    </message>
    <message>
        <source>the card service did not recognise the card&apos;s brand</source>
        <translation>o serviço de cartões não reconheceu a bandeira do cartão</translation>
    </message>
    <message>
        <source>the card service refused the shop&apos;s credentials</source>
        <translation>o serviço de cartões recusou as credenciais da loja</translation>
    </message>
    <message>
        <source>the card service refused the card; check what was typed</source>
        <translation>o serviço de cartões recusou o cartão; confira o que foi digitado</translation>
    </message>
    <message>
        <source>the card page could not be loaded</source>
        <translation>não foi possível carregar a página do cartão</translation>
    </message>
    <message>
        <source>the card page keeps failing</source>
        <translation>a página do cartão continua falhando</translation>
    </message>
    <message>
        <source>the card service credentials changed; the card form was reloaded, enter the card again</source>
        <translation>as credenciais do serviço de cartões mudaram; o formulário do cartão foi recarregado, digite o cartão de novo</translation>
    </message>
    <message>
        <source>the shop&apos;s CNPJ for the card service is not valid</source>
        <translation>o CNPJ da loja para o serviço de cartões não é válido</translation>
    </message>
    <message>
        <source>the card service&apos;s merchant token is empty, too long or holds spaces or control characters; enter it again in Settings → Credentials</source>
        <translation>o token de lojista do serviço de cartões está vazio, longo demais ou contém espaços ou caracteres de controle; digite-o de novo em Configurações → Credenciais</translation>
    </message>
    <message>
        <source>the card service&apos;s merchant token is not set; enter it in Settings → Credentials</source>
        <translation>o token de lojista do serviço de cartões não foi informado; digite-o em Configurações → Credenciais</translation>
    </message>
    <message>
        <source>the card service&apos;s merchant token cannot be read: no keychain is available</source>
        <translation>não foi possível ler o token de lojista do serviço de cartões: nenhum chaveiro está disponível</translation>
    </message>
    <message>
        <source>3DS {status}</source>
        <translation>3DS {status}</translation>
    </message>
    <message>
        <source>no status</source>
        <translation>sem status</translation>
    </message>
</context>
<context>
    <name>Receipt</name>
    <message>
        <source>Credit</source>
        <translation>Crédito</translation>
    </message>
    <message>
        <source>PicPay wallet</source>
        <translation>Carteira PicPay</translation>
    </message>
    <message>
        <source>PIX</source>
        <translation>PIX</translation>
    </message>
    <message>
        <source>CUSTOMER COPY</source>
        <translation>VIA DO CLIENTE</translation>
    </message>
    <message>
        <source>MERCHANT COPY</source>
        <translation>VIA DO ESTABELECIMENTO</translation>
    </message>
    <message>
        <source>cut here</source>
        <translation>corte aqui</translation>
    </message>
    <message>
        <source>SALE RECEIPT</source>
        <translation>COMPROVANTE DE VENDA</translation>
    </message>
    <message>
        <source>REFUND RECEIPT</source>
        <translation>COMPROVANTE DE ESTORNO</translation>
    </message>
    <message>
        <source>PRE-AUTHORIZATION RECEIPT</source>
        <translation>COMPROVANTE DE PRÉ-AUTORIZAÇÃO</translation>
    </message>
    <message>
        <source>Date</source>
        <translation>Data</translation>
    </message>
    <message>
        <source>Charge</source>
        <translation>Cobrança</translation>
    </message>
    <message>
        <source>Original amount</source>
        <translation>Valor original</translation>
    </message>
    <message>
        <source>Refunded now</source>
        <translation>Estornado agora</translation>
    </message>
    <message>
        <source>Refunded in total</source>
        <translation>Estornado no total</translation>
    </message>
    <message>
        <source>Amount</source>
        <translation>Valor</translation>
    </message>
    <message>
        <source>Refunded so far</source>
        <translation>Estornado até agora</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Situação</translation>
    </message>
    <message>
        <source>Card</source>
        <translation>Cartão</translation>
    </message>
    <message>
        <source>Payment</source>
        <translation>Pagamento</translation>
    </message>
    <message>
        <source>On this card</source>
        <translation>Neste cartão</translation>
    </message>
    <message>
        <source>Installments</source>
        <translation>Parcelas</translation>
    </message>
    <message>
        <source>single payment</source>
        <translation>à vista</translation>
    </message>
    <message>
        <source>Authorization</source>
        <translation>Autorização</translation>
    </message>
    <message>
        <source>NSU</source>
        <translation>NSU</translation>
    </message>
    <message>
        <source>TEST — NO MONEY WAS MOVED</source>
        <translation>TESTE — NENHUM VALOR FOI COBRADO</translation>
    </message>
    <message>
        <source>The amount is held on the card, not charged yet.</source>
        <translation>O valor está reservado no cartão, ainda não cobrado.</translation>
    </message>
    <message>
        <source>Keep this receipt.</source>
        <translation>Guarde este comprovante.</translation>
    </message>
    <message>
        <source>End-to-end id</source>
        <translation>Identificador fim a fim</translation>
    </message>
    <message>
        <source>Transaction</source>
        <translation>Transação</translation>
    </message>
    <message>
        <source>Print receipt</source>
        <translation>Imprimir comprovante</translation>
    </message>
    <message>
        <source>receipt-{id}-refund.pdf</source>
        <translation>comprovante-{id}-estorno.pdf</translation>
    </message>
    <message>
        <source>receipt-{id}-sale.pdf</source>
        <translation>comprovante-{id}-venda.pdf</translation>
    </message>
    <message>
        <source>Report saved</source>
        <translation>Relatório salvo</translation>
    </message>
    <message>
        <source>The report was saved as {name}.</source>
        <translation>O relatório foi salvo como {name}.</translation>
    </message>
    <message>
        <source>Receipt saved</source>
        <translation>Comprovante salvo</translation>
    </message>
    <message>
        <source>The receipt was saved as {name}.</source>
        <translation>O comprovante foi salvo como {name}.</translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation>Abrir pasta</translation>
    </message>
</context>
<context>
    <name>ResultView</name>
    <message>
        <source>&amp;Print receipt</source>
        <translation>&amp;Imprimir comprovante</translation>
    </message>
    <message>
        <source>Save receipt as P&amp;DF…</source>
        <translation>Salvar comprovante em P&amp;DF…</translation>
    </message>
    <message>
        <source>&amp;Try another card</source>
        <translation>&amp;Tentar outro cartão</translation>
    </message>
    <message>
        <source>&amp;Capture now</source>
        <translation>&amp;Capturar agora</translation>
    </message>
    <message>
        <source>&amp;New sale (F2)</source>
        <translation>&amp;Nova venda (F2)</translation>
    </message>
    <message>
        <source>Receipt</source>
        <translation>Comprovante</translation>
    </message>
    <message>
        <source>Outcome unknown — checking</source>
        <translation>Resultado desconhecido — consultando</translation>
    </message>
    <message>
        <source>Authentication failed</source>
        <translation>Autenticação falhou</translation>
    </message>
    <message>
        <source>Not charged</source>
        <translation>Não cobrado</translation>
    </message>
    <message>
        <source>Charge {id}</source>
        <translation>Cobrança {id}</translation>
    </message>
    <message>
        <source>Nothing was charged; this sale can be charged again.</source>
        <translation>Nada foi cobrado; esta venda pode ser cobrada de novo.</translation>
    </message>
    <message>
        <source>Nothing was charged (the service confirmed it has no such charge); this sale can be charged again.</source>
        <translation>Nada foi cobrado (o serviço confirmou que não tem esta cobrança); esta venda pode ser cobrada de novo.</translation>
    </message>
    <message>
        <source>3DS authentication {why}, and the settings refuse a card without it</source>
        <translation>autenticação 3DS {why}, e as configurações recusam o cartão sem ela</translation>
    </message>
    <message>
        <source>Why: {why}</source>
        <translation>Por quê: {why}</translation>
    </message>
    <message>
        <source>The bank refused the card: ask for another card or another way to pay.</source>
        <translation>O banco recusou o cartão: peça outro cartão ou outra forma de pagamento.</translation>
    </message>
    <message>
        <source>3DS authentication {why}</source>
        <translation>autenticação 3DS {why}</translation>
    </message>
    <message>
        <source>Charge &amp;again</source>
        <translation>Co&amp;brar de novo</translation>
    </message>
    <message>
        <source>Authorized: the amount is held on the card, not charged yet. Capture it to charge it (now, or later from the history).</source>
        <translation>Autorizada: o valor está reservado no cartão, ainda não cobrado. Capture para cobrar (agora ou depois, pelo histórico).</translation>
    </message>
    <message>
        <source>end-to-end id {id}</source>
        <translation>identificador fim a fim {id}</translation>
    </message>
    <message>
        <source>{brand} •••• {last4} · {amount} · auth {auth} · NSU {nsu}</source>
        <translation>{brand} •••• {last4} · {amount} · autorização {auth} · NSU {nsu}</translation>
    </message>
    <message>
        <source>Service&apos;s reply: {words}</source>
        <translation>Resposta do serviço: {words}</translation>
    </message>
    <message>
        <source>3DS: {status}</source>
        <translation>3DS: {status}</translation>
    </message>
</context>
<context>
    <name>RunCommand</name>
    <message>
        <source>use this environment profile instead of the saved one</source>
        <translation>usa este perfil de ambiente em vez do salvo</translation>
    </message>
    <message>
        <source>allow the web view&apos;s developer tools</source>
        <translation>permite as ferramentas de desenvolvedor da página web</translation>
    </message>
    <message>
        <source>start offscreen on the built-in sandbox, charge a test card end to end, print a one-line verdict with each step&apos;s time, and exit 0 (pass) or 1 (fail)</source>
        <translation>inicia sem tela no sandbox embutido, cobra um cartão de teste de ponta a ponta, mostra o resultado numa linha com o tempo de cada etapa e sai com 0 (passou) ou 1 (falhou)</translation>
    </message>
    <message>
        <source>listen for notifications on this port for this run (0: any free port)</source>
        <translation>recebe notificações nesta porta só nesta execução (0: qualquer porta livre)</translation>
    </message>
    <message>
        <source>port {port} is outside 0–65535</source>
        <translation>a porta {port} está fora de 0–65535</translation>
    </message>
    <message>
        <source>the screen {display} does not answer (its X server is not running: the desktop session ended, or an SSH connection that carried it closed); start the terminal in the shop&apos;s desktop session, or check the connection without a window with `checkout-desktop doctor`</source>
        <translation>a tela {display} não responde (o servidor X dela não está rodando: a sessão da área de trabalho terminou, ou a conexão SSH que a levava foi fechada); inicie o terminal na sessão da área de trabalho da loja, ou verifique a conexão sem janela com `checkout-desktop doctor`</translation>
    </message>
    <message>
        <source>there is no screen to open the terminal&apos;s window on (no DISPLAY or WAYLAND_DISPLAY: a session over SSH or a system service?); start it in the shop&apos;s desktop session, or check the connection without a window with `checkout-desktop doctor`</source>
        <translation>não há tela onde abrir a janela do terminal (sem DISPLAY nem WAYLAND_DISPLAY: uma sessão por SSH ou um serviço do sistema?); inicie-o na sessão de área de trabalho da loja, ou verifique a conexão sem janela com `checkout-desktop doctor`</translation>
    </message>
</context>
<context>
    <name>SandboxCommand</name>
    <message>
        <source>Run the built-in sandbox (token server, charge API, card SDK backend, webhook sender). It prints one JSON line on stdout (addresses, SDK host mapping, test credentials), then serves until SIGTERM or Ctrl-C. Logs go to stderr.</source>
        <translation>Executa o sandbox embutido (servidor de tokens, API de cobranças, servidor do SDK de cartão, envio de webhooks). Ele imprime uma linha JSON na saída padrão (endereços, mapeamento do host do SDK, credenciais de teste) e atende até receber SIGTERM ou Ctrl-C. Os registros vão para a saída de erro.</translation>
    </message>
    <message>
        <source>address to listen on (127.0.0.1)</source>
        <translation>endereço em que escutar (127.0.0.1)</translation>
    </message>
    <message>
        <source>port of the REST API and token endpoint (0: any)</source>
        <translation>porta da API REST e do endpoint de tokens (0: qualquer uma)</translation>
    </message>
    <message>
        <source>HTTPS port of the SDK backend</source>
        <translation>porta HTTPS do servidor do SDK</translation>
    </message>
    <message>
        <source>serve the SDK backend on this inherited, already listening loopback socket instead of binding --sdk-port (the starting process then knows the port beforehand)</source>
        <translation>atende o servidor do SDK neste socket local herdado, já escutando, em vez de abrir --sdk-port (assim o processo que o inicia sabe a porta de antemão)</translation>
    </message>
    <message>
        <source>host the SDK build calls (default {host})</source>
        <translation>host que o SDK chama (padrão {host})</translation>
    </message>
    <message>
        <source>keep the SDK backend&apos;s certificate and key in DIR, so its pin stays the same across runs (default: a new certificate each run, key only in memory)</source>
        <translation>guarda o certificado e a chave do servidor do SDK na PASTA, para que a fixação (pin) continue a mesma entre execuções (padrão: um certificado novo a cada execução, chave só na memória)</translation>
    </message>
    <message>
        <source>keep the charges in FILE, so a restarted sandbox still knows them (and announces the same instance id); default: in memory only, gone when it stops</source>
        <translation>guarda as cobranças no ARQUIVO, para que um sandbox reiniciado ainda as conheça (e anuncie o mesmo id de instância); padrão: só na memória, perdidas quando ele para</translation>
    </message>
    <message>
        <source>notification URL (HTTPS, no query, no IPv4)</source>
        <translation>endereço de notificações (HTTPS, sem parâmetros, sem IPv4)</translation>
    </message>
    <message>
        <source>file holding the webhook token sent in the Authorization header</source>
        <translation>arquivo com o token do webhook enviado no cabeçalho Authorization</translation>
    </message>
    <message>
        <source>CA certificate(s) the sender trusts</source>
        <translation>certificado(s) de CA em que o envio confia</translation>
    </message>
    <message>
        <source>charge notification body: flat (layout A), envelope (layout B) or alternate</source>
        <translation>corpo da notificação de cobrança: flat (formato A), envelope (formato B) ou alternate (alternando)</translation>
    </message>
    <message>
        <source>access token life (300)</source>
        <translation>validade do token de acesso (300)</translation>
    </message>
    <message>
        <source>temporary card token life (900)</source>
        <translation>validade do token temporário de cartão (900)</translation>
    </message>
    <message>
        <source>how long the slow test card&apos;s reply takes (35)</source>
        <translation>quanto demora a resposta do cartão de teste lento (35)</translation>
    </message>
    <message>
        <source>a simulated customer pays every wallet and PIX QR S seconds after it is made</source>
        <translation>um cliente simulado paga cada QR de carteira e de PIX S segundos depois de criado</translation>
    </message>
    <message>
        <source>per attempt (10)</source>
        <translation>por tentativa (10)</translation>
    </message>
    <message>
        <source>attempts per notification</source>
        <translation>tentativas por notificação</translation>
    </message>
    <message>
        <source>first retry pause, doubled each retry (1)</source>
        <translation>pausa antes da primeira nova tentativa, dobrada a cada uma (1)</translation>
    </message>
    <message>
        <source>inject a fault; repeatable. Names: {names}</source>
        <translation>provoca uma falha; pode repetir. Nomes: {names}</translation>
    </message>
    <message>
        <source>play one answer to an open question about the real service; repeatable. Names: {names} (values in the README)</source>
        <translation>simula uma resposta a uma dúvida em aberto sobre o serviço real; pode repetir. Nomes: {names} (valores no README)</translation>
    </message>
    <message>
        <source>exit when stdin closes (the process that started the sandbox went away)</source>
        <translation>sai quando a entrada padrão fecha (o processo que iniciou o sandbox terminou)</translation>
    </message>
    <message>
        <source>cannot read the webhook token file {path}: {why}</source>
        <translation>não foi possível ler o arquivo do token de notificações {path}: {why}</translation>
    </message>
    <message>
        <source>the webhook token file {path} is not UTF-8 text</source>
        <translation>o arquivo do token de notificações {path} não é texto UTF-8</translation>
    </message>
    <message>
        <source>the webhook token file {path} is empty</source>
        <translation>o arquivo do token de notificações {path} está vazio</translation>
    </message>
    <message>
        <source>--sdk-fd and --sdk-port exclude each other</source>
        <translation>--sdk-fd e --sdk-port não podem ser usados juntos</translation>
    </message>
    <message>
        <source>--sdk-fd must be a file descriptor number, not {fd}</source>
        <translation>--sdk-fd deve ser o número de um descritor de arquivo, não {fd}</translation>
    </message>
    <message>
        <source>descriptor {fd} (--sdk-fd) is not an open socket ({why})</source>
        <translation>o descritor {fd} (--sdk-fd) não é um socket aberto ({why})</translation>
    </message>
    <message>
        <source>descriptor {fd} (--sdk-fd) is not a usable socket ({why})</source>
        <translation>o descritor {fd} (--sdk-fd) não é um socket utilizável ({why})</translation>
    </message>
    <message>
        <source>descriptor {fd} (--sdk-fd) is not a TCP socket</source>
        <translation>o descritor {fd} (--sdk-fd) não é um socket TCP</translation>
    </message>
    <message>
        <source>descriptor {fd} (--sdk-fd) is not listening</source>
        <translation>o descritor {fd} (--sdk-fd) não está escutando</translation>
    </message>
    <message>
        <source>descriptor {fd} (--sdk-fd) listens on {address}, not on a loopback address</source>
        <translation>o descritor {fd} (--sdk-fd) escuta em {address}, não num endereço de loopback</translation>
    </message>
    <message>
        <source>{text} is not a yes/no value (use true or false)</source>
        <translation>{text} não é um valor sim/não (use true ou false)</translation>
    </message>
    <message>
        <source>unknown fault {name}; known: {known}</source>
        <translation>falha desconhecida {name}; as conhecidas: {known}</translation>
    </message>
    <message>
        <source>fault {name} needs a value, as {example}</source>
        <translation>a falha {name} precisa de um valor, como {example}</translation>
    </message>
    <message>
        <source>fault {name} needs a whole number, got {raw}</source>
        <translation>a falha {name} precisa de um número inteiro, recebeu {raw}</translation>
    </message>
    <message>
        <source>fault {name} needs a number, got {raw}</source>
        <translation>a falha {name} precisa de um número, recebeu {raw}</translation>
    </message>
    <message>
        <source>{name} must be between 0 and 65535, got {port}</source>
        <translation>{name} deve estar entre 0 e 65535, recebeu {port}</translation>
    </message>
    <message>
        <source>cannot listen on {address}: {why}</source>
        <translation>não foi possível escutar em {address}: {why}</translation>
    </message>
    <message>
        <source>require={value}: unknown {unknown}; use none or any of phone, device, email joined by commas</source>
        <translation>require={value}: desconhecido {unknown}; use none ou qualquer um de phone, device, email separados por vírgulas</translation>
    </message>
    <message>
        <source>{name}={value} is not a value it takes; use {choices}</source>
        <translation>{name}={value} não é um valor aceito; use {choices}</translation>
    </message>
    <message>
        <source>unknown variant(s) {unknown}; known: {known}</source>
        <translation>variante(s) desconhecida(s) {unknown}; as conhecidas: {known}</translation>
    </message>
    <message>
        <source>{name} takes a text value: {choices}</source>
        <translation>{name} recebe um valor de texto: {choices}</translation>
    </message>
    <message>
        <source>variant {name} needs a value, as {example}</source>
        <translation>a variante {name} precisa de um valor, como {example}</translation>
    </message>
    <message>
        <source>write a variant as NAME=VALUE; known: {known}</source>
        <translation>escreva uma variante como NOME=VALOR; as conhecidas: {known}</translation>
    </message>
</context>
<context>
    <name>SecretFile</name>
    <message>
        <source>the client-secret file {path}</source>
        <translation>o arquivo do segredo do cliente {path}</translation>
    </message>
    <message>
        <source>the webhook token file {path}</source>
        <translation>o arquivo do token do webhook {path}</translation>
    </message>
    <message>
        <source>{file} does not exist</source>
        <translation>{file} não existe</translation>
    </message>
    <message>
        <source>cannot open {file}: {reason}</source>
        <translation>não foi possível abrir {file}: {reason}</translation>
    </message>
    <message>
        <source>{file} is not a regular file</source>
        <translation>{file} não é um arquivo comum</translation>
    </message>
    <message>
        <source>{file} can be read or changed by other users (mode {mode}); run `chmod 600 {path}` and try again</source>
        <translation>{file} pode ser lido ou alterado por outros usuários (modo {mode}); execute `chmod 600 {path}` e tente de novo</translation>
    </message>
    <message>
        <source>{file} belongs to another user</source>
        <translation>{file} pertence a outro usuário</translation>
    </message>
    <message>
        <source>{file} is larger than a secret can be</source>
        <translation>{file} é grande demais para conter um segredo</translation>
    </message>
    <message>
        <source>{file} is not UTF-8 text</source>
        <translation>{file} não é texto UTF-8</translation>
    </message>
    <message>
        <source>{file} is empty</source>
        <translation>{file} está vazio</translation>
    </message>
    <message>
        <source>{file} holds more than one word; put only the secret in it</source>
        <translation>{file} tem mais de uma palavra; deixe nele só o segredo</translation>
    </message>
</context>
<context>
    <name>Settings</name>
    <message>
        <source>the active profile {name} is not defined in the settings; known profiles: {known}; choose one in Settings → Environment, or name one with --profile NAME</source>
        <translation>o perfil ativo {name} não está definido nas configurações; perfis existentes: {known}; escolha um em Configurações → Ambiente, ou indique um com --profile NOME</translation>
    </message>
    <message>
        <source>there is no profile {name}; known profiles: {known}</source>
        <translation>não existe o perfil {name}; perfis existentes: {known}</translation>
    </message>
    <message>
        <source>settings file {path} is not a regular file; move it away and start again (the defaults are used when the file is missing)</source>
        <translation>o arquivo de configurações {path} não é um arquivo comum; tire-o de lá e comece de novo (sem o arquivo, valem as configurações padrão)</translation>
    </message>
    <message>
        <source>settings file {path} is larger than settings can be ({limit} bytes); move it away and start again</source>
        <translation>o arquivo de configurações {path} é maior do que configurações podem ser ({limit} bytes); tire-o do lugar e inicie de novo</translation>
    </message>
    <message>
        <source>cannot read settings file {path}: {why}</source>
        <translation>não foi possível ler o arquivo de configurações {path}: {why}</translation>
    </message>
    <message>
        <source>cannot read settings file {path}, it is not valid JSON: {detail}</source>
        <translation>não foi possível ler o arquivo de configurações {path}, ele não é JSON válido: {detail}</translation>
    </message>
    <message>
        <source>settings file {path} is not valid: {details}</source>
        <translation>o arquivo de configurações {path} não é válido: {details}</translation>
    </message>
    <message>
        <source>settings file {path} nests more than {depth} levels deep; it is not a settings file</source>
        <translation>o arquivo de configurações {path} tem mais de {depth} níveis aninhados; não é um arquivo de configurações</translation>
    </message>
    <message>
        <source>settings file {path} is not UTF-8 text</source>
        <translation>o arquivo de configurações {path} não é texto UTF-8</translation>
    </message>
    <message>
        <source>settings file {path} does not hold a JSON object</source>
        <translation>o arquivo de configurações {path} não contém um objeto JSON</translation>
    </message>
</context>
<context>
    <name>SettingsPanel</name>
    <message>
        <source>System language</source>
        <translation>Idioma do sistema</translation>
    </message>
    <message>
        <source>printed on receipts</source>
        <translation>impresso nos comprovantes</translation>
    </message>
    <message>
        <source>Ask for the customer&apos;s phone on every sale</source>
        <translation>Pedir o telefone do cliente em toda venda</translation>
    </message>
    <message>
        <source>Learned from the service&apos;s refusals, or set here. Untick it to let the terminal try again.</source>
        <translation>Aprendido com as recusas do serviço, ou marcado aqui. Desmarque para o terminal tentar de novo.</translation>
    </message>
    <message>
        <source>Ask for the customer&apos;s e-mail on every sale</source>
        <translation>Pedir o e-mail do cliente em toda venda</translation>
    </message>
    <message>
        <source>The service takes only a CPF as the customer&apos;s document</source>
        <translation>O serviço aceita só CPF como documento do cliente</translation>
    </message>
    <message>
        <source>The service does not cancel an unpaid QR (it expires by itself)</source>
        <translation>O serviço não cancela QR não pago (ele expira sozinho)</translation>
    </message>
    <message>
        <source>General</source>
        <translation>Geral</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>Ambiente</translation>
    </message>
    <message>
        <source>Shop name</source>
        <translation>Nome da loja</translation>
    </message>
    <message>
        <source>The charge screen asks to check sales above this amount (zero: never).</source>
        <translation>A tela de cobrança pede conferência de vendas acima deste valor (zero: nunca).</translation>
    </message>
    <message>
        <source>Warn above</source>
        <translation>Avisar acima de</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>Idioma</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>Desligado</translation>
    </message>
    <message>
        <source>From an amount up</source>
        <translation>A partir de um valor</translation>
    </message>
    <message>
        <source>Every card charge</source>
        <translation>Em toda cobrança no cartão</translation>
    </message>
    <message>
        <source>Refuse the card (nothing is charged)</source>
        <translation>Recusar o cartão (nada é cobrado)</translation>
    </message>
    <message>
        <source>Charge it without 3DS</source>
        <translation>Cobrar sem 3DS</translation>
    </message>
    <message>
        <source>3-D Secure (the bank&apos;s confirmation)</source>
        <translation>3-D Secure (confirmação do banco)</translation>
    </message>
    <message>
        <source>Confirm with the bank</source>
        <translation>Confirmar com o banco</translation>
    </message>
    <message>
        <source>From</source>
        <translation>A partir de</translation>
    </message>
    <message>
        <source>any free port</source>
        <translation>qualquer porta livre</translation>
    </message>
    <message>
        <source>No tunnel (local only)</source>
        <translation>Sem túnel (só local)</translation>
    </message>
    <message>
        <source>My own HTTPS URL (manual)</source>
        <translation>Minha própria URL HTTPS (manual)</translation>
    </message>
    <message>
        <source>Webhook and reconciliation</source>
        <translation>Webhook e conciliação</translation>
    </message>
    <message>
        <source>Listener port</source>
        <translation>Porta do receptor</translation>
    </message>
    <message>
        <source>Tunnel</source>
        <translation>Túnel</translation>
    </message>
    <message>
        <source>Public URL</source>
        <translation>URL pública</translation>
    </message>
    <message>
        <source>Query open charges every</source>
        <translation>Consultar cobranças em aberto a cada</translation>
    </message>
    <message>
        <source>4 to 8 digits; empty keeps the current one</source>
        <translation>4 a 8 dígitos; vazio mantém o atual</translation>
    </message>
    <message>
        <source>Remove PIN</source>
        <translation>Remover PIN</translation>
    </message>
    <message>
        <source>New PIN</source>
        <translation>Novo PIN</translation>
    </message>
    <message>
        <source>stored in the keychain; type to replace</source>
        <translation>guardado no chaveiro; digite para substituir</translation>
    </message>
    <message>
        <source>Credentials of the selected environment</source>
        <translation>Credenciais do ambiente escolhido</translation>
    </message>
    <message>
        <source>If 3DS is unavailable or fails technically</source>
        <translation>Se o 3DS estiver indisponível ou falhar por erro técnico</translation>
    </message>
    <message>
        <source>A confirmation the bank refuses, or one cancelled, unanswered or sent to another address, is never charged.</source>
        <translation>Uma confirmação recusada pelo banco, cancelada, sem resposta ou enviada a outro endereço nunca é cobrada.</translation>
    </message>
    <message>
        <source>Client id</source>
        <translation>Client id</translation>
    </message>
    <message>
        <source>Merchant CNPJ</source>
        <translation>CNPJ do lojista</translation>
    </message>
    <message>
        <source>Client secret</source>
        <translation>Client secret</translation>
    </message>
    <message>
        <source>Card SDK token</source>
        <translation>Token do SDK de cartão</translation>
    </message>
    <message>
        <source>Card SDK token kind</source>
        <translation>Tipo do token do SDK de cartão</translation>
    </message>
    <message>
        <source>Webhook token</source>
        <translation>Token do webhook</translation>
    </message>
    <message>
        <source>Connection to the service</source>
        <translation>Conexão com o serviço</translation>
    </message>
    <message>
        <source>&amp;Test connection</source>
        <translation>&amp;Testar conexão</translation>
    </message>
    <message>
        <source>Checks the saved settings against the service, without charging anything.</source>
        <translation>Verifica as configurações salvas com o serviço, sem cobrar nada.</translation>
    </message>
    <message>
        <source>&amp;Save settings</source>
        <translation>&amp;Salvar configurações</translation>
    </message>
    <message>
        <source>Revert</source>
        <translation>Desfazer</translation>
    </message>
    <message>
        <source>client secret</source>
        <translation>client secret</translation>
    </message>
    <message>
        <source>card SDK token</source>
        <translation>token do SDK de cartões</translation>
    </message>
    <message>
        <source>webhook token</source>
        <translation>token do webhook</translation>
    </message>
    <message>
        <source>client id</source>
        <translation>client id</translation>
    </message>
    <message>
        <source>merchant CNPJ</source>
        <translation>CNPJ do estabelecimento</translation>
    </message>
    <message>
        <source>This environment cannot charge without: {items}.</source>
        <translation>Este ambiente não consegue cobrar sem: {items}.</translation>
    </message>
    <message>
        <source>Testing… (at most a few seconds)</source>
        <translation>Testando… (no máximo alguns segundos)</translation>
    </message>
    <message>
        <source>The test was cancelled.</source>
        <translation>O teste foi cancelado.</translation>
    </message>
    <message>
        <source>Test</source>
        <translation>Teste</translation>
    </message>
    <message>
        <source>Everything works: this terminal can charge.</source>
        <translation>Tudo funciona: este terminal pode cobrar.</translation>
    </message>
    <message>
        <source>This terminal can charge; the lines marked ⚠ still need care.</source>
        <translation>Este terminal pode cobrar; as linhas marcadas com ⚠ ainda precisam de atenção.</translation>
    </message>
    <message>
        <source>Something does not work: see the lines marked ✘.</source>
        <translation>Algo não funciona: veja as linhas marcadas com ✘.</translation>
    </message>
    <message>
        <source>the supervisor PIN</source>
        <translation>o PIN do supervisor</translation>
    </message>
    <message>
        <source>the environment</source>
        <translation>o ambiente</translation>
    </message>
    <message>
        <source>the credentials</source>
        <translation>as credenciais</translation>
    </message>
    <message>
        <source>the 3-D Secure rules</source>
        <translation>as regras do 3-D Secure</translation>
    </message>
    <message>
        <source>the store</source>
        <translation>o banco de dados</translation>
    </message>
    <message>
        <source>the webhook settings</source>
        <translation>as configurações do webhook</translation>
    </message>
    <message>
        <source>the language</source>
        <translation>o idioma</translation>
    </message>
    <message>
        <source>the listener port</source>
        <translation>a porta do receptor</translation>
    </message>
    <message>
        <source>the tunnel</source>
        <translation>o túnel</translation>
    </message>
    <message>
        <source>Not saved: a change to {changes} needs the supervisor PIN. What you typed is still here.</source>
        <translation>Não salvo: alterar {changes} exige o PIN do supervisor. O que você digitou continua aqui.</translation>
    </message>
    <message>
        <source>Type the supervisor PIN to save a change to {changes}.</source>
        <translation>Digite o PIN do supervisor para salvar o que mudou: {changes}.</translation>
    </message>
    <message>
        <source>A supervisor PIN has 4 to 8 digits.</source>
        <translation>O PIN do supervisor tem de 4 a 8 dígitos.</translation>
    </message>
    <message>
        <source>The client id takes letters, digits, &apos;_&apos; and &apos;-&apos; only.</source>
        <translation>O client id aceita só letras, dígitos, &apos;_&apos; e &apos;-&apos;.</translation>
    </message>
    <message>
        <source>The merchant CNPJ is not valid.</source>
        <translation>O CNPJ do lojista não é válido.</translation>
    </message>
    <message>
        <source>Saved. These changes apply at the next start: {changes}.</source>
        <translation>Salvo. Estas alterações valem a partir do próximo início: {changes}.</translation>
    </message>
    <message>
        <source>Not kept: {items}. They need the keychain, which cannot be used now; what you typed for them is still here.</source>
        <translation>Não guardado: {items}. Isso precisa do chaveiro, que não pode ser usado agora; o que você digitou continua aqui.</translation>
    </message>
    <message>
        <source>This environment&apos;s secrets could not be checked: the keychain cannot be used now.</source>
        <translation>Não foi possível verificar os segredos deste ambiente: o chaveiro não pode ser usado agora.</translation>
    </message>
    <message>
        <source>No keychain is available to store the secrets.</source>
        <translation>Não há chaveiro disponível para guardar os segredos.</translation>
    </message>
    <message>
        <source>Supervisor PIN</source>
        <translation>PIN do supervisor</translation>
    </message>
    <message>
        <source>Refunds, captures of earlier days&apos; charges and ending an unanswered charge ask for the supervisor PIN.</source>
        <translation>Estornos, capturas de cobranças de dias anteriores e o encerramento de uma cobrança sem resposta pedem o PIN do supervisor.</translation>
    </message>
    <message>
        <source>No PIN: anyone at the terminal can refund, capture earlier days&apos; charges or end an unanswered charge.</source>
        <translation>Sem PIN: qualquer pessoa no terminal pode estornar, capturar cobranças de dias anteriores ou encerrar uma cobrança sem resposta.</translation>
    </message>
    <message>
        <source>the secrets typed</source>
        <translation>os segredos digitados</translation>
    </message>
    <message>
        <source>The settings could not be saved: {why}</source>
        <translation>As configurações não puderam ser salvas: {why}</translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation>Salvo.</translation>
    </message>
</context>
<context>
    <name>SettingsPinDialog</name>
    <message>
        <source>Supervisor PIN</source>
        <translation>PIN do supervisor</translation>
    </message>
    <message>
        <source>Only a supervisor may change {changes}: type the supervisor PIN.</source>
        <translation>Só um supervisor pode alterar {changes}: digite o PIN do supervisor.</translation>
    </message>
    <message>
        <source>Wrong supervisor PIN.</source>
        <translation>PIN do supervisor incorreto.</translation>
    </message>
</context>
<context>
    <name>SharedStore</name>
    <message>
        <source>database {database} as {user} on {server}</source>
        <translation>banco {database} como {user} em {server}</translation>
    </message>
    <message>
        <source>the shared store refused the login ({where}): the user or the password is wrong, or the server does not let this computer in; check the user in the address and the password in the keychain ({command}), and the server&apos;s pg_hba.conf. The server said: {said}</source>
        <translation>o banco compartilhado recusou o acesso ({where}): o usuário ou a senha estão errados, ou o servidor não deixa este computador entrar; confira o usuário no endereço e a senha no chaveiro ({command}), e o pg_hba.conf do servidor. O servidor disse: {said}</translation>
    </message>
    <message>
        <source>the shared store&apos;s server has no database {database}; create it ({command}) or correct the address</source>
        <translation>o servidor do banco compartilhado não tem o banco de dados {database}; crie-o ({command}) ou corrija o endereço</translation>
    </message>
    <message>
        <source>the secure connection to the shared store failed ({where}); check sslmode and the server&apos;s certificate (sslrootcert). The server said: {said}</source>
        <translation>a conexão segura com o banco compartilhado falhou ({where}); confira o sslmode e o certificado do servidor (sslrootcert). O servidor disse: {said}</translation>
    </message>
    <message>
        <source>the shared store does not answer ({where}): the server is down, or the network or a firewall is in the way. The terminal keeps what it shows and takes no payment until it can record it. Details: {said}</source>
        <translation>o banco compartilhado não responde ({where}): o servidor está fora do ar, ou a rede ou um firewall está no caminho. O terminal mantém o que mostra e não aceita pagamento até poder registrá-lo. Detalhes: {said}</translation>
    </message>
    <message>
        <source>the shared store refused a request ({where}): {said}</source>
        <translation>o banco compartilhado recusou um pedido ({where}): {said}</translation>
    </message>
    <message>
        <source>the shared store asks for a password ({where}) and the keychain holds none for it; store it with {command}</source>
        <translation>o banco compartilhado pede uma senha ({where}) e o chaveiro não guarda nenhuma para ele; guarde-a com {command}</translation>
    </message>
    <message>
        <source>the {where} already holds {tables} tables of another program; checkout-desktop keeps its store in a database of its own: create an empty one and point --store at it</source>
        <translation>o {where} já contém {tables} tabelas de outro programa; o checkout-desktop guarda seu banco num banco de dados só dele: crie um vazio e aponte --store para ele</translation>
    </message>
    <message>
        <source>the {where} belongs to {application}, not checkout-desktop</source>
        <translation>o {where} pertence a {application}, não ao checkout-desktop</translation>
    </message>
    <message>
        <source>the shared store ({where}) has schema version {version}, written by a newer checkout-desktop (this one knows up to {known}); upgrade this terminal — nothing in the store was changed</source>
        <translation>o banco compartilhado ({where}) tem a versão de esquema {version}, gravada por um checkout-desktop mais novo (este conhece até a {known}); atualize este terminal — nada no banco foi alterado</translation>
    </message>
    <message>
        <source>the shared store ({where}) did not answer within {seconds} s</source>
        <translation>o banco compartilhado ({where}) não respondeu em {seconds} s</translation>
    </message>
    <message>
        <source>the shared store ({where}) already holds {charges} charges, {attempts} attempts and {deliveries} deliveries; a copy goes into an empty store only (it never merges two shops&apos; histories). Nothing was copied.</source>
        <translation>o banco compartilhado ({where}) já contém {charges} cobranças, {attempts} tentativas e {deliveries} notificações; uma cópia só vai para um banco vazio (nunca mistura o histórico de duas lojas). Nada foi copiado.</translation>
    </message>
</context>
<context>
    <name>ShopPage</name>
    <message>
        <source>Shop</source>
        <translation>Loja</translation>
    </message>
    <message>
        <source>The name printed on receipts, and who may refund. Both can change later.</source>
        <translation>O nome impresso nos comprovantes e quem pode estornar. Os dois podem mudar depois.</translation>
    </message>
    <message>
        <source>printed on receipts</source>
        <translation>impresso nos comprovantes</translation>
    </message>
    <message>
        <source>Shop &amp;name</source>
        <translation>&amp;Nome da loja</translation>
    </message>
    <message>
        <source>Supervisor &amp;PIN (recommended)</source>
        <translation>&amp;PIN do supervisor (recomendado)</translation>
    </message>
    <message>
        <source>PIN &amp;again</source>
        <translation>PIN &amp;novamente</translation>
    </message>
    <message>
        <source>Refunds, captures of earlier days&apos; charges and ending an unanswered charge will ask for this PIN (4 to 8 digits).</source>
        <translation>Estornos, capturas de cobranças de dias anteriores e o encerramento de uma cobrança sem resposta vão pedir este PIN (4 a 8 dígitos).</translation>
    </message>
    <message>
        <source>Without a PIN anyone at the terminal can refund a sale, capture earlier days&apos; charges or end an unanswered charge. A PIN of 4 to 8 digits, known to the owner or supervisor, is recommended.</source>
        <translation>Sem PIN, qualquer pessoa no terminal pode estornar uma venda, capturar cobranças de dias anteriores ou encerrar uma cobrança sem resposta. Recomendamos um PIN de 4 a 8 dígitos, conhecido pelo dono ou supervisor.</translation>
    </message>
    <message>
        <source>Trying the database…</source>
        <translation>Testando o banco…</translation>
    </message>
    <message>
        <source>Nothing could be tried. Press Next again to keep this database anyway: the terminal will not start until the server answers. Or correct the fields.</source>
        <translation>Não foi possível testar nada. Clique em Avançar de novo para guardar este banco assim mesmo: o terminal não vai iniciar enquanto o servidor não responder. Ou corrija os campos.</translation>
    </message>
    <message>
        <source>Nothing was kept: correct the fields and press Next again, or keep the sales on this computer.</source>
        <translation>Nada foi guardado: corrija os campos e clique em Avançar de novo, ou guarde as vendas neste computador.</translation>
    </message>
    <message>
        <source>The password was not kept; correct it and press Next again.</source>
        <translation>A senha não foi guardada; corrija-a e clique em Avançar de novo.</translation>
    </message>
    <message>
        <source>The two PINs differ; type the same PIN twice.</source>
        <translation>Os dois PINs são diferentes; digite o mesmo PIN duas vezes.</translation>
    </message>
    <message>
        <source>A supervisor PIN has 4 to 8 digits.</source>
        <translation>O PIN do supervisor tem de 4 a 8 dígitos.</translation>
    </message>
</context>
<context>
    <name>StartProblems</name>
    <message>
        <source>Notifications are off: the listener&apos;s port is in use.</source>
        <translation>Notificações desligadas: a porta do receptor está em uso.</translation>
    </message>
    <message>
        <source>Notifications are off: the listener cannot use its address or port.</source>
        <translation>Notificações desligadas: o receptor não consegue usar o endereço ou a porta.</translation>
    </message>
    <message>
        <source>Notifications are off: the listener must listen on this computer.</source>
        <translation>Notificações desligadas: o receptor precisa escutar neste computador.</translation>
    </message>
    <message>
        <source>Notifications are off: the inbox cannot open its store.</source>
        <translation>Notificações desligadas: a caixa de entrada não consegue abrir o banco de dados.</translation>
    </message>
    <message>
        <source>Notifications wait for the webhook token: enter it in Settings.</source>
        <translation>As notificações aguardam o token do webhook: digite-o em Configurações.</translation>
    </message>
    <message>
        <source>No keychain can be used: notifications are off.</source>
        <translation>Nenhum chaveiro pode ser usado: notificações desligadas.</translation>
    </message>
    <message>
        <source>Notifications cannot reach this computer: check the tunnel in Settings.</source>
        <translation>As notificações não chegam a este computador: confira o túnel em Configurações.</translation>
    </message>
    <message>
        <source>The terminal started with a problem: notifications may be off.</source>
        <translation>O terminal iniciou com um problema: as notificações podem estar desligadas.</translation>
    </message>
    <message>
        <source>The terminal started with {count} problems: notifications may be off.</source>
        <translation>O terminal iniciou com {count} problemas: as notificações podem estar desligadas.</translation>
    </message>
    <message>
        <source>Sales can still be charged: the terminal asks the service for each result. The technical detail says what to fix (Settings, or the listener&apos;s port); the change applies at the next start.</source>
        <translation>Ainda dá para cobrar: o terminal pergunta o resultado de cada venda ao serviço. O detalhe técnico diz o que corrigir (Configurações, ou a porta do receptor); a mudança vale no próximo início.</translation>
    </message>
</context>
<context>
    <name>StartupProblem</name>
    <message>
        <source>The built-in sandbox (the training service this computer runs) did not start. Start the terminal again; if it fails again, the technical detail below says why.</source>
        <translation>O sandbox embutido (o serviço de treino que este computador roda) não iniciou. Inicie o terminal de novo; se falhar outra vez, o detalhe técnico abaixo diz por quê.</translation>
    </message>
    <message>
        <source>The settings file {file} cannot be read: it is damaged, or was changed by hand. Move it to another folder (the terminal then starts with its setup, as on its first day) or put back a good copy, then start again.</source>
        <translation>O arquivo de configurações {file} não pode ser lido: está danificado, ou foi alterado à mão. Mova-o para outra pasta (o terminal então inicia com a configuração, como no primeiro dia) ou recoloque uma cópia boa, e inicie de novo.</translation>
    </message>
    <message>
        <source>The terminal cannot write in its data folder {folder}. Make it writable by this user, or start with another folder (--data-dir), then start again.</source>
        <translation>O terminal não consegue gravar na sua pasta de dados {folder}. Dê a este usuário permissão de gravar nela, ou inicie com outra pasta (--data-dir), e inicie de novo.</translation>
    </message>
    <message>
        <source>A folder of the terminal cannot be used as it is: other users can change it, it belongs to another user, or a file stands where the folder should be. Make the folder named below yours alone (on Linux: chmod 700 and the folder), or start with another folder (--data-dir), then start again.</source>
        <translation>Uma pasta do terminal não pode ser usada como está: outros usuários podem alterá-la, ela pertence a outro usuário, ou há um arquivo no lugar da pasta. Torne a pasta indicada abaixo só sua (no Linux: chmod 700 e a pasta), ou inicie com outra pasta (--data-dir), e inicie de novo.</translation>
    </message>
    <message>
        <source>The sales file {file} is damaged (it failed its integrity check) and was left as it is. Close every checkout-desktop, move the file (with its -wal and -shm files) to another folder to keep for support, then start again with a new, empty file.</source>
        <translation>O arquivo de vendas {file} está danificado (falhou na verificação de integridade) e foi deixado como está. Feche todos os checkout-desktop, mova o arquivo (com os arquivos -wal e -shm) para outra pasta, para o suporte, e inicie de novo com um arquivo novo, vazio.</translation>
    </message>
    <message>
        <source>The file {file} is not a sales file of checkout-desktop (it is another program&apos;s, or not a database) and was left untouched. Move it to another folder, then start again.</source>
        <translation>O arquivo {file} não é um arquivo de vendas do checkout-desktop (é de outro programa, ou não é um banco de dados) e não foi mexido. Mova-o para outra pasta e inicie de novo.</translation>
    </message>
    <message>
        <source>The sales file {file} was written by a newer checkout-desktop: install that version, or a newer one.</source>
        <translation>O arquivo de vendas {file} foi gravado por um checkout-desktop mais novo: instale essa versão, ou uma mais nova.</translation>
    </message>
    <message>
        <source>The sales file {file} or its folder cannot be written. Make both writable by this user, or start with another folder (--data-dir).</source>
        <translation>O arquivo de vendas {file} ou a sua pasta não podem ser gravados. Dê a este usuário permissão de gravar nos dois, ou inicie com outra pasta (--data-dir).</translation>
    </message>
    <message>
        <source>The sales file {file} cannot be opened (the disk may be full, or something else stands in its place). Free some space or check the folder, then start again.</source>
        <translation>O arquivo de vendas {file} não pode ser aberto (o disco pode estar cheio, ou há outra coisa no lugar dele). Libere espaço ou confira a pasta, e inicie de novo.</translation>
    </message>
    <message>
        <source>The technical detail below says what keeps it from starting, and how to fix it.</source>
        <translation>O detalhe técnico abaixo diz o que impede o início, e como corrigir.</translation>
    </message>
    <message>
        <source>The terminal cannot start.</source>
        <translation>O terminal não pode iniciar.</translation>
    </message>
</context>
<context>
    <name>Store</name>
    <message>
        <source>the store {path} is damaged or not a database ({detail}); the file is left as it is: move it away (the terminal then starts a new, empty store) and keep it for support</source>
        <translation>o banco {path} está danificado ou não é um banco de dados ({detail}); o arquivo fica como está: tire-o de lá (o terminal então começa um banco novo, vazio) e guarde-o para o suporte</translation>
    </message>
    <message>
        <source>the store {path} cannot be written ({detail}); check that the file and its folder belong to this user and are writable (chmod u+w), and that the disk is not mounted read-only</source>
        <translation>não é possível gravar no banco {path} ({detail}); confira se o arquivo e a pasta pertencem a este usuário e permitem gravação (chmod u+w), e se o disco não está montado só para leitura</translation>
    </message>
    <message>
        <source>the disk holding the store {path} is full; free some space and start again</source>
        <translation>o disco do banco {path} está cheio; libere espaço e comece de novo</translation>
    </message>
    <message>
        <source>the store&apos;s folder {folder} is not a folder (a file has its name); move that file away and start again</source>
        <translation>a pasta do banco {folder} não é uma pasta (um arquivo tem o nome dela); tire esse arquivo de lá e comece de novo</translation>
    </message>
    <message>
        <source>the store {path} is a folder, not a file; move it away</source>
        <translation>o banco {path} é uma pasta, não um arquivo; tire-a de lá</translation>
    </message>
    <message>
        <source>the store {path} cannot be opened: {detail}</source>
        <translation>não foi possível abrir o banco {path}: {detail}</translation>
    </message>
    <message>
        <source>the store {path} is not a regular file; move it away</source>
        <translation>o banco {path} não é um arquivo comum; tire-o de lá</translation>
    </message>
    <message>
        <source>the file {path} is not an SQLite database, so not a checkout-desktop store; it is left untouched: move it away and start again</source>
        <translation>o arquivo {path} não é um banco SQLite, portanto não é um banco do checkout-desktop; ele fica intacto: tire-o de lá e comece de novo</translation>
    </message>
    <message>
        <source>the file {path} is another program&apos;s database (application id {app_id}, {tables} tables), not a checkout-desktop store; it is left untouched: move it away and start again</source>
        <translation>o arquivo {path} é o banco de dados de outro programa (id de aplicação {app_id}, {tables} tabelas), não um banco do checkout-desktop; ele fica intacto: tire-o de lá e comece de novo</translation>
    </message>
    <message>
        <source>the store {path} failed its integrity check ({detail}); it is left as it is: stop every checkout-desktop, move the file (and its -wal and -shm files) away to keep for support, and start again with a new store</source>
        <translation>o banco {path} falhou na verificação de integridade ({detail}); ele fica como está: feche todos os checkout-desktop, tire o arquivo (e os arquivos -wal e -shm) de lá e guarde-os para o suporte, e comece de novo com um banco novo</translation>
    </message>
    <message>
        <source>the store {path} cannot be written (the file or its folder is read-only); make both writable by this user (chmod u+w), or start with another --data-dir</source>
        <translation>não é possível gravar no banco {path} (o arquivo ou a pasta é só para leitura); permita gravação a este usuário nos dois (chmod u+w), ou comece com outro --data-dir</translation>
    </message>
    <message>
        <source>the store {path} has schema version {version}, written by a newer checkout-desktop (this one knows up to {known}); upgrade the terminal — the file is untouched</source>
        <translation>o banco {path} tem a versão de esquema {version}, gravada por um checkout-desktop mais novo (este conhece até a {known}); atualize o terminal — o arquivo fica intacto</translation>
    </message>
</context>
<context>
    <name>StoreAddress</name>
    <message>
        <source>the shared store&apos;s server name holds a &apos;@&apos;: give the server&apos;s name alone, the user in its own field and the password in the OS keychain</source>
        <translation>o nome do servidor do banco compartilhado contém um &apos;@&apos;: informe só o nome do servidor, o usuário no campo dele e a senha no chaveiro do sistema</translation>
    </message>
    <message>
        <source>the shared store&apos;s server name holds a space</source>
        <translation>o nome do servidor do banco compartilhado contém um espaço</translation>
    </message>
    <message>
        <source>the shared store&apos;s server name holds a &apos;/&apos; (a socket folder starts with &apos;/&apos;)</source>
        <translation>o nome do servidor do banco compartilhado contém uma &apos;/&apos; (uma pasta de socket começa com &apos;/&apos;)</translation>
    </message>
    <message>
        <source>the shared store&apos;s server name holds a &apos;:&apos; but is not an IPv6 address: give the port in its own field</source>
        <translation>o nome do servidor do banco compartilhado contém &apos;:&apos; mas não é um endereço IPv6: informe a porta no campo dela</translation>
    </message>
    <message>
        <source>a shared store is given as {form} (the embedded store needs no --store)</source>
        <translation>um banco compartilhado é indicado como {form} (o banco embutido não precisa de --store)</translation>
    </message>
    <message>
        <source>the --store address is not a valid postgresql:// URL; write it as {form}</source>
        <translation>o endereço de --store não é uma URL postgresql:// válida; escreva-o como {form}</translation>
    </message>
    <message>
        <source>the --store address carries a secret ({names}); give the address without it and store the password in the OS keychain with {command}</source>
        <translation>o endereço de --store traz um segredo ({names}); informe o endereço sem ele e guarde a senha no chaveiro do sistema com {command}</translation>
    </message>
    <message>
        <source>the --store address has parameters checkout-desktop does not use: {unknown}; allowed: {allowed}</source>
        <translation>o endereço de --store tem parâmetros que o checkout-desktop não usa: {unknown}; os permitidos: {allowed}</translation>
    </message>
    <message>
        <source>the --store address names no database: write {form}</source>
        <translation>o endereço de --store não indica o banco de dados: escreva {form}</translation>
    </message>
    <message>
        <source>the --store address names no user: write {form}</source>
        <translation>o endereço de --store não indica o usuário: escreva {form}</translation>
    </message>
    <message>
        <source>sslmode={mode} is not one of {modes} (verify-full checks the server&apos;s certificate and name; use it across a network)</source>
        <translation>sslmode={mode} não é um de {modes} (verify-full confere o certificado e o nome do servidor; use-o através de uma rede)</translation>
    </message>
    <message>
        <source>the --store address&apos;s port {port} is not a port number</source>
        <translation>a porta {port} do endereço de --store não é um número de porta</translation>
    </message>
</context>
<context>
    <name>StoreChoice</name>
    <message>
        <source>Where sales are kept</source>
        <translation>Onde as vendas ficam guardadas</translation>
    </message>
    <message>
        <source>This computer</source>
        <translation>Este computador</translation>
    </message>
    <message>
        <source>The shop&apos;s shared database</source>
        <translation>Banco compartilhado da loja</translation>
    </message>
    <message>
        <source>server name or address</source>
        <translation>nome ou endereço do servidor</translation>
    </message>
    <message>
        <source>Test the database</source>
        <translation>Testar o banco</translation>
    </message>
    <message>
        <source>Server</source>
        <translation>Servidor</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>Porta</translation>
    </message>
    <message>
        <source>Database</source>
        <translation>Banco</translation>
    </message>
    <message>
        <source>User</source>
        <translation>Usuário</translation>
    </message>
    <message>
        <source>Password</source>
        <translation>Senha</translation>
    </message>
    <message>
        <source>Encryption (sslmode)</source>
        <translation>Criptografia (sslmode)</translation>
    </message>
    <message>
        <source>One database for every counter of the shop: each sees every sale and notification. The password is kept in the system&apos;s keychain. A change applies at the next start.</source>
        <translation>Um banco para todos os caixas da loja: cada um vê todas as vendas e notificações. A senha fica guardada no chaveiro do sistema. Uma mudança vale a partir do próximo início.</translation>
    </message>
    <message>
        <source>kept in the keychain</source>
        <translation>guardada no chaveiro</translation>
    </message>
    <message>
        <source>server</source>
        <translation>servidor</translation>
    </message>
    <message>
        <source>database</source>
        <translation>banco</translation>
    </message>
    <message>
        <source>user</source>
        <translation>usuário</translation>
    </message>
    <message>
        <source>The shop&apos;s shared database needs: {items}.</source>
        <translation>O banco compartilhado da loja precisa de: {items}.</translation>
    </message>
    <message>
        <source>The database&apos;s address is not valid: {why}</source>
        <translation>O endereço do banco não é válido: {why}</translation>
    </message>
    <message>
        <source>No keychain is available to store the secrets.</source>
        <translation>Não há chaveiro disponível para guardar os segredos.</translation>
    </message>
    <message>
        <source>This computer keeps the sales: nothing to test.</source>
        <translation>Este computador guarda as vendas: não há o que testar.</translation>
    </message>
    <message>
        <source>Testing… (at most a few seconds)</source>
        <translation>Testando… (no máximo alguns segundos)</translation>
    </message>
    <message>
        <source>The test failed: {why}</source>
        <translation>O teste falhou: {why}</translation>
    </message>
    <message>
        <source>Connected: PostgreSQL {version}.</source>
        <translation>Conectado: PostgreSQL {version}.</translation>
    </message>
    <message>
        <source>The database is empty: this terminal prepares it at its next start.</source>
        <translation>O banco está vazio: este terminal o prepara no próximo início.</translation>
    </message>
    <message>
        <source>The connection is not encrypted; across a network use verify-full.</source>
        <translation>A conexão não é criptografada; numa rede, use verify-full.</translation>
    </message>
    <message>
        <source>The server does not answer: check the server&apos;s name and port, that it is running, and that the network or a firewall lets this computer through.</source>
        <translation>O servidor não responde: confira o nome e a porta do servidor, se ele está ligado e se a rede ou um firewall deixam este computador passar.</translation>
    </message>
    <message>
        <source>The server refused the login: check the user and the password.</source>
        <translation>O servidor recusou o acesso: confira o usuário e a senha.</translation>
    </message>
    <message>
        <source>The server asks for a password: type it in Password.</source>
        <translation>O servidor pede uma senha: digite-a em Senha.</translation>
    </message>
    <message>
        <source>The server has no database with this name: create it first.</source>
        <translation>O servidor não tem um banco com esse nome: crie-o antes.</translation>
    </message>
    <message>
        <source>The encrypted connection failed: check sslmode and the server&apos;s certificate.</source>
        <translation>A conexão criptografada falhou: confira o sslmode e o certificado do servidor.</translation>
    </message>
    <message>
        <source>This database was prepared by a newer checkout-desktop: upgrade this terminal first.</source>
        <translation>Este banco foi preparado por um checkout-desktop mais novo: atualize este terminal antes.</translation>
    </message>
    <message>
        <source>This database holds another program&apos;s tables: use an empty database.</source>
        <translation>Este banco tem tabelas de outro programa: use um banco vazio.</translation>
    </message>
    <message>
        <source>The database&apos;s address is not valid.</source>
        <translation>O endereço do banco não é válido.</translation>
    </message>
    <message>
        <source>The server refused the request.</source>
        <translation>O servidor recusou o pedido.</translation>
    </message>
    <message>
        <source>Technical detail: {detail}</source>
        <translation>Detalhe técnico: {detail}</translation>
    </message>
</context>
<context>
    <name>StoreCommand</name>
    <message>
        <source>try the shared store&apos;s password (read from the terminal, or the first line of standard input), and keep it in the OS keychain once the server accepts it</source>
        <translation>testa a senha do banco compartilhado (digitada no terminal, ou a primeira linha da entrada padrão) e a guarda no chaveiro do sistema quando o servidor a aceita</translation>
    </message>
    <message>
        <source>remove the password from the keychain instead</source>
        <translation>em vez disso, remove a senha do chaveiro</translation>
    </message>
    <message>
        <source>connect to the shared store, bring its schema up to date and say what it holds</source>
        <translation>conecta ao banco compartilhado, atualiza o esquema dele e diz o que ele contém</translation>
    </message>
    <message>
        <source>copy this computer&apos;s whole store (charges, timelines, deliveries) into an empty shared store in one transaction, verified by counts and checksums</source>
        <translation>copia todo o banco deste computador (cobranças, históricos, notificações) para um banco compartilhado vazio, numa só transação, conferida por contagens e somas de verificação</translation>
    </message>
    <message>
        <source>the shared store to copy into (its password from the keychain)</source>
        <translation>o banco compartilhado para onde copiar (a senha vem do chaveiro)</translation>
    </message>
    <message>
        <source>name the shared store before the command: {command} (or {migrate})</source>
        <translation>indique o banco compartilhado antes do comando: {command} (ou {migrate})</translation>
    </message>
    <message>
        <source>Password of the shared store: </source>
        <translation>Senha do banco compartilhado: </translation>
    </message>
    <message>
        <source>no password given; nothing was stored</source>
        <translation>nenhuma senha informada; nada foi guardado</translation>
    </message>
    <message>
        <source>password of {store} removed from the keychain</source>
        <translation>senha de {store} removida do chaveiro</translation>
    </message>
    <message>
        <source>the keychain held no password for {store}</source>
        <translation>o chaveiro não tinha senha para {store}</translation>
    </message>
    <message>
        <source>password of {store} kept in the OS keychain</source>
        <translation>senha de {store} guardada no chaveiro do sistema</translation>
    </message>
    <message>
        <source>shared store {store}: PostgreSQL {version}</source>
        <translation>banco compartilhado {store}: PostgreSQL {version}</translation>
    </message>
    <message>
        <source>schema {version} (this terminal knows up to {known})</source>
        <translation>esquema {version} (este terminal conhece até o {known})</translation>
    </message>
    <message>
        <source>connection: TLS</source>
        <translation>conexão: TLS</translation>
    </message>
    <message>
        <source>connection: not encrypted</source>
        <translation>conexão: sem criptografia</translation>
    </message>
    <message>
        <source>event search: trigram index</source>
        <translation>busca de eventos: índice de trigramas</translation>
    </message>
    <message>
        <source>event search: scans (no pg_trgm)</source>
        <translation>busca de eventos: varredura (sem pg_trgm)</translation>
    </message>
    <message>
        <source>{charges} charges, {events} webhook deliveries</source>
        <translation>{charges} cobranças, {events} notificações recebidas</translation>
    </message>
    <message>
        <source>inbox: no counter holds it</source>
        <translation>caixa de entrada: nenhum caixa está com ela</translation>
    </message>
    <message>
        <source>inbox: held by {counter} on {host} (process {pid}) since {since} UTC</source>
        <translation>caixa de entrada: com {counter} em {host} (processo {pid}) desde {since} UTC</translation>
    </message>
    <message>
        <source>{problem}; the password typed was not kept in the keychain</source>
        <translation>{problem}; a senha digitada não foi guardada no chaveiro</translation>
    </message>
    <message>
        <source>there is no store at {store} to copy; choose the folder with --data-dir or CHECKOUT_DESKTOP_HOME</source>
        <translation>não há banco de dados em {store} para copiar; escolha a pasta com --data-dir ou CHECKOUT_DESKTOP_HOME</translation>
    </message>
    <message>
        <source>cannot lock the data folder {folder} ({why}); nothing was copied</source>
        <translation>não foi possível travar a pasta de dados {folder} ({why}); nada foi copiado</translation>
    </message>
    <message>
        <source>checkout-desktop is running on {folder} (process {pid}): the sales it makes after the copy would stay in this folder&apos;s own store. Close it, then run store migrate again; nothing was copied</source>
        <translation>o checkout-desktop está aberto em {folder} (processo {pid}): as vendas que ele fizer depois da cópia ficariam no banco próprio desta pasta. Feche-o e rode store migrate de novo; nada foi copiado</translation>
    </message>
    <message>
        <source>next: open every counter of this shop on the shared store: start it with `checkout-desktop --store {url}`, or choose &quot;The shop&apos;s shared database&quot; in Settings (on each computer, `checkout-desktop --store {url} store password` keeps its password first). A counter left on its own store keeps its sales there.</source>
        <translation>próximo passo: abra cada caixa desta loja no banco compartilhado: inicie-o com `checkout-desktop --store {url}` ou escolha &quot;Banco compartilhado da loja&quot; em Configurações (em cada computador, `checkout-desktop --store {url} store password` guarda antes a senha). Um caixa deixado no próprio banco continua guardando as vendas nele.</translation>
    </message>
    <message>
        <source>{table}: {rows} rows</source>
        <translation>{table}: {rows} linhas</translation>
    </message>
    <message>
        <source>copying {source} into {store} (one transaction)</source>
        <translation>copiando {source} para {store} (uma transação)</translation>
    </message>
    <message>
        <source>{problem} This folder&apos;s sales stay in its own store; to work on the shared store from now on, start this counter with `checkout-desktop --store {url}`, or choose &quot;The shop&apos;s shared database&quot; in Settings.</source>
        <translation>{problem} As vendas desta pasta ficam no banco próprio dela; para trabalhar no banco compartilhado daqui em diante, inicie este caixa com `checkout-desktop --store {url}` ou escolha &quot;Banco compartilhado da loja&quot; em Configurações.</translation>
    </message>
    <message>
        <source>verified: {rows} rows in {tables} tables, counts and SHA-256 checksums equal</source>
        <translation>conferido: {rows} linhas em {tables} tabelas, contagens e somas SHA-256 iguais</translation>
    </message>
</context>
<context>
    <name>StoreTexts</name>
    <message>
        <source>The shop&apos;s shared store does not answer (the server is down, or the network is in the way), so nothing was changed. Try again once it answers.</source>
        <translation>O banco compartilhado da loja não responde (o servidor está fora do ar ou a rede está com problema), então nada foi alterado. Tente de novo quando ele responder.</translation>
    </message>
    <message>
        <source>The shop&apos;s shared store refused this terminal&apos;s login (user or password), so nothing was changed.</source>
        <translation>O banco compartilhado da loja recusou o login deste terminal (usuário ou senha), então nada foi alterado.</translation>
    </message>
    <message>
        <source>The shop&apos;s shared store was upgraded by a newer checkout-desktop, so nothing was changed: upgrade this terminal.</source>
        <translation>O banco compartilhado da loja foi atualizado por um checkout-desktop mais novo, então nada foi alterado: atualize este terminal.</translation>
    </message>
    <message>
        <source>The store could not be used just now, so nothing was changed. Try again; if it goes on, the technical detail (hold the pointer over this text) says why.</source>
        <translation>Não foi possível usar o banco de dados agora, então nada foi alterado. Tente de novo; se continuar, o detalhe técnico (deixe o ponteiro sobre este texto) diz o motivo.</translation>
    </message>
</context>
<context>
    <name>TenderBar</name>
    <message>
        <source>Pay with</source>
        <translation>Pagar com</translation>
    </message>
    <message>
        <source>Card (Ctrl+1)</source>
        <translation>Cartão (Ctrl+1)</translation>
    </message>
    <message>
        <source>PicPay (Ctrl+2)</source>
        <translation>PicPay (Ctrl+2)</translation>
    </message>
    <message>
        <source>PIX (Ctrl+3)</source>
        <translation>PIX (Ctrl+3)</translation>
    </message>
</context>
<context>
    <name>Terminal</name>
    <message>
        <source>Test shop (built-in sandbox)</source>
        <translation>Loja de teste (sandbox embutido)</translation>
    </message>
</context>
<context>
    <name>TerminalStatusBar</name>
    <message>
        <source>Environment: {name}</source>
        <translation>Ambiente: {name}</translation>
    </message>
    <message>
        <source>Token: not requested yet</source>
        <translation>Token: ainda não pedido</translation>
    </message>
    <message>
        <source>Listener: starting</source>
        <translation>Receptor: iniciando</translation>
    </message>
    <message>
        <source>Service: checking…</source>
        <translation>Serviço: verificando…</translation>
    </message>
    <message>
        <source>Whether the payment service can be reached: not checked yet</source>
        <translation>Se o serviço de pagamento pode ser alcançado: ainda não verificado</translation>
    </message>
    <message>
        <source>Token: expired, renewed on next use</source>
        <translation>Token: expirado, renovado no próximo uso</translation>
    </message>
    <message>
        <source>Token: valid, {left} left</source>
        <translation>Token: válido, faltam {left}</translation>
    </message>
    <message>
        <source>Token: requesting…</source>
        <translation>Token: pedindo…</translation>
    </message>
    <message>
        <source>Token: failed</source>
        <translation>Token: falhou</translation>
    </message>
    <message>
        <source>Listener: on {url}</source>
        <translation>Receptor: em {url}</translation>
    </message>
    <message>
        <source>Listener: failed</source>
        <translation>Receptor: falhou</translation>
    </message>
    <message>
        <source>Listener: stopped</source>
        <translation>Receptor: parado</translation>
    </message>
    <message>
        <source>Technical detail: {detail}</source>
        <translation>Detalhe técnico: {detail}</translation>
    </message>
    <message>
        <source>Notifications arrive at {url} on this computer.</source>
        <translation>As notificações chegam em {url} neste computador.</translation>
    </message>
    <message>
        <source>The notification inbox is starting.</source>
        <translation>A caixa de entrada de notificações está iniciando.</translation>
    </message>
    <message>
        <source>Inbox: healthy</source>
        <translation>Caixa de entrada: saudável</translation>
    </message>
    <message>
        <source>Inbox: degraded</source>
        <translation>Caixa de entrada: degradada</translation>
    </message>
    <message>
        <source>Inbox: down</source>
        <translation>Caixa de entrada: fora do ar</translation>
    </message>
    <message>
        <source>{reason} (since {since})</source>
        <translation>{reason} (desde {since})</translation>
    </message>
    <message>
        <source>Inbox: free, this counter takes it over</source>
        <translation>Caixa de entrada: livre, este caixa vai assumi-la</translation>
    </message>
    <message>
        <source>No counter receives the shop&apos;s notifications at the moment; this counter asks every few seconds and takes the inbox over.</source>
        <translation>Nenhum caixa recebe as notificações da loja no momento; este caixa verifica a cada poucos segundos e assume a caixa de entrada.</translation>
    </message>
    <message>
        <source>Inbox: on computer {host}, without a window (since {time})</source>
        <translation>Caixa de entrada: no computador {host}, sem janela (desde {time})</translation>
    </message>
    <message>
        <source>Inbox: at counter {counter} (since {time})</source>
        <translation>Caixa de entrada: no caixa {counter} (desde {time})</translation>
    </message>
    <message>
        <source>the inbox without a window (checkout-desktop listen) on computer {host}</source>
        <translation>à caixa de entrada sem janela (checkout-desktop listen) no computador {host}</translation>
    </message>
    <message>
        <source>counter {counter} on computer {host}</source>
        <translation>ao caixa {counter}, no computador {host}</translation>
    </message>
    <message>
        <source>The shop&apos;s notifications arrive at {where} (since {since}) and show here through the shared store. If it stops, this counter takes the inbox over within a few seconds.</source>
        <translation>As notificações da loja chegam {where} (desde {since}) e aparecem aqui pelo banco compartilhado. Se ele parar, este caixa assume a caixa de entrada em poucos segundos.</translation>
    </message>
    <message>
        <source>Tunnel: starting</source>
        <translation>Túnel: iniciando</translation>
    </message>
    <message>
        <source>Tunnel: up</source>
        <translation>Túnel: no ar</translation>
    </message>
    <message>
        <source>Tunnel: down</source>
        <translation>Túnel: fora do ar</translation>
    </message>
    <message>
        <source>Tunnel: restarting</source>
        <translation>Túnel: reiniciando</translation>
    </message>
    <message>
        <source>Technical detail (from the tunnel program): {detail}</source>
        <translation>Detalhe técnico (do programa de túnel): {detail}</translation>
    </message>
    <message>
        <source>The service reaches this terminal at {url}.</source>
        <translation>O serviço alcança este terminal em {url}.</translation>
    </message>
    <message>
        <source>The tunnel is starting.</source>
        <translation>O túnel está iniciando.</translation>
    </message>
    <message>
        <source>Service: reachable</source>
        <translation>Serviço: acessível</translation>
    </message>
    <message>
        <source>Service: card form unreachable</source>
        <translation>Serviço: formulário de cartão inacessível</translation>
    </message>
    <message>
        <source>Service: unreachable</source>
        <translation>Serviço: inacessível</translation>
    </message>
    <message>
        <source>Service: no reply in time</source>
        <translation>Serviço: sem resposta a tempo</translation>
    </message>
    <message>
        <source>Payment service</source>
        <translation>Serviço de pagamento</translation>
    </message>
    <message>
        <source>The last call to the payment service got no reply in time ({time}); the next reply from the service ends this.</source>
        <translation>A última chamada ao serviço de pagamento ficou sem resposta a tempo ({time}); a próxima resposta do serviço encerra este aviso.</translation>
    </message>
    <message>
        <source>Card form service</source>
        <translation>Serviço do formulário de cartão</translation>
    </message>
    <message>
        <source>Checked at {time}; next check in {seconds} s.</source>
        <translation>Verificado às {time}; próxima verificação em {seconds} s.</translation>
    </message>
    <message>
        <source>Since {since}.</source>
        <translation>Desde {since}.</translation>
    </message>
    <message>
        <source>1 charge with unknown outcome: being checked</source>
        <translation>1 cobrança com resultado desconhecido: em consulta</translation>
    </message>
    <message>
        <source>{n} charges with unknown outcome: being checked</source>
        <translation>{n} cobranças com resultado desconhecido: em consulta</translation>
    </message>
    <message>
        <source>1 QR awaiting payment</source>
        <translation>1 QR aguardando pagamento</translation>
    </message>
    <message>
        <source>{n} QRs awaiting payment</source>
        <translation>{n} QRs aguardando pagamento</translation>
    </message>
    <message>
        <source>No open attempts</source>
        <translation>Nenhuma tentativa em aberto</translation>
    </message>
</context>
<context>
    <name>TestPage</name>
    <message>
        <source>Test connection</source>
        <translation>Testar conexão</translation>
    </message>
    <message>
        <source>Checks the keychain, an access token, a charge query, the card form service and a test notification, without charging anything.</source>
        <translation>Verifica o chaveiro, um token de acesso, uma consulta de cobrança, o serviço do formulário de cartão e uma notificação de teste, sem cobrar nada.</translation>
    </message>
    <message>
        <source>&amp;Run the test again</source>
        <translation>&amp;Testar de novo</translation>
    </message>
    <message>
        <source>Testing…</source>
        <translation>Testando…</translation>
    </message>
    <message>
        <source>The test was cancelled.</source>
        <translation>O teste foi cancelado.</translation>
    </message>
    <message>
        <source>Test</source>
        <translation>Teste</translation>
    </message>
    <message>
        <source>Everything works. Press Finish to start charging.</source>
        <translation>Tudo funciona. Pressione Concluir para começar a cobrar.</translation>
    </message>
    <message>
        <source>It works, with warnings (marked ⚠ above). You can charge now and fix them later in Settings.</source>
        <translation>Funciona, com avisos (marcados com ⚠ acima). Você já pode cobrar e corrigir depois em Configurações.</translation>
    </message>
    <message>
        <source>The shop&apos;s shared database cannot be used (details above): the terminal will not start until it is fixed. Go back to Shop to correct it, or to keep the sales on this computer.</source>
        <translation>O banco compartilhado da loja não pode ser usado (detalhes acima): o terminal não vai iniciar enquanto isso não for corrigido. Volte à página Loja para corrigi-lo ou para guardar as vendas neste computador.</translation>
    </message>
    <message>
        <source>Something failed (details above). You can go back and fix it, or finish now and fix it later in Settings.</source>
        <translation>Algo falhou (detalhes acima). Você pode voltar e corrigir, ou concluir agora e corrigir depois em Configurações.</translation>
    </message>
    <message>
        <source>Shared database</source>
        <translation>Banco compartilhado</translation>
    </message>
</context>
<context>
    <name>Timeline</name>
    <message>
        <source>This terminal</source>
        <translation>Este terminal</translation>
    </message>
    <message>
        <source>Service&apos;s reply</source>
        <translation>Resposta do serviço</translation>
    </message>
    <message>
        <source>Notification</source>
        <translation>Notificação</translation>
    </message>
    <message>
        <source>Terminal asked the service</source>
        <translation>Terminal consultou o serviço</translation>
    </message>
    <message>
        <source>3DS check</source>
        <translation>Verificação 3DS</translation>
    </message>
    <message>
        <source>The charge went from {before} to {after}.</source>
        <translation>A cobrança passou de {before} para {after}.</translation>
    </message>
    <message>
        <source>The charge is {status}.</source>
        <translation>A cobrança está {status}.</translation>
    </message>
    <message>
        <source>{context}: {what}</source>
        <translation>{context}: {what}</translation>
    </message>
    <message>
        <source>The service has this {kind} QR ({status}); attempt resolved.</source>
        <translation>O serviço tem este QR {kind} ({status}); tentativa resolvida.</translation>
    </message>
    <message>
        <source>More details of the charge arrived; its status stays {status}.</source>
        <translation>Chegaram mais detalhes da cobrança; a situação continua {status}.</translation>
    </message>
    <message>
        <source>Nothing new: the charge was already {status}.</source>
        <translation>Nada de novo: a cobrança já estava {status}.</translation>
    </message>
    <message>
        <source>Older news than what the terminal already knew; set aside.</source>
        <translation>Informação mais antiga do que o terminal já sabia; deixada de lado.</translation>
    </message>
    <message>
        <source>Why: {reason}</source>
        <translation>Por quê: {reason}</translation>
    </message>
    <message>
        <source>At the service: {at}</source>
        <translation>No serviço: {at}</translation>
    </message>
    <message>
        <source>occurred at the service: {at}</source>
        <translation>ocorreu no serviço: {at}</translation>
    </message>
    <message>
        <source>input: {status}</source>
        <translation>entrada: {status}</translation>
    </message>
    <message>
        <source>status before: {before}; after: {after}</source>
        <translation>situação antes: {before}; depois: {after}</translation>
    </message>
    <message>
        <source>source: {ref}</source>
        <translation>origem: {ref}</translation>
    </message>
    <message>
        <source>changes: {changes}</source>
        <translation>mudanças: {changes}</translation>
    </message>
    <message>
        <source>The customer&apos;s payment landed after the {kind} QR had ended; refund it if the sale was paid another way.</source>
        <translation>O pagamento do cliente chegou depois que o QR {kind} foi encerrado; estorne-o se a venda foi paga de outra forma.</translation>
    </message>
    <message>
        <source>The {kind} QR was created; it awaits the customer&apos;s payment.</source>
        <translation>O QR {kind} foi gerado; aguarda o pagamento do cliente.</translation>
    </message>
    <message>
        <source>The customer paid the {kind} QR.</source>
        <translation>O cliente pagou o QR {kind}.</translation>
    </message>
    <message>
        <source>The {kind} QR expired unpaid.</source>
        <translation>O QR {kind} expirou sem pagamento.</translation>
    </message>
    <message>
        <source>The {kind} QR was cancelled; nothing was paid.</source>
        <translation>O QR {kind} foi cancelado; nada foi pago.</translation>
    </message>
</context>
<context>
    <name>TimelineModel</name>
    <message>
        <source>When</source>
        <translation>Quando</translation>
    </message>
    <message>
        <source>From</source>
        <translation>De onde</translation>
    </message>
    <message>
        <source>What happened</source>
        <translation>O que aconteceu</translation>
    </message>
    <message>
        <source>Status after</source>
        <translation>Situação depois</translation>
    </message>
</context>
<context>
    <name>Tunnel</name>
    <message>
        <source>the ngrok agent API address {url} must be {expected} (the agent&apos;s local API on this machine)</source>
        <translation>o endereço da API do agente ngrok {url} deve ser {expected} (a API local do agente nesta máquina)</translation>
    </message>
    <message>
        <source>manual tunnel mode needs the public notification URL that forwards to this listener (Settings → Webhooks → public URL)</source>
        <translation>o modo de túnel manual precisa da URL pública de notificações que encaminha para este receptor (Configurações → Webhooks → URL pública)</translation>
    </message>
    <message>
        <source>there is no public URL to acknowledge yet</source>
        <translation>ainda não há URL pública para confirmar</translation>
    </message>
</context>
<context>
    <name>TunnelNotice</name>
    <message>
        <source>I updated the merchant panel</source>
        <translation>Já atualizei o painel do lojista</translation>
    </message>
    <message>
        <source>The public address changed. Until the merchant panel&apos;s notification URL is {url}, no notification reaches this terminal.</source>
        <translation>O endereço público mudou. Enquanto a URL de notificação no painel do lojista não for {url}, nenhuma notificação chega a este terminal.</translation>
    </message>
</context>
<context>
    <name>WebhookPage</name>
    <message>
        <source>Webhook</source>
        <translation>Webhook</translation>
    </message>
    <message>
        <source>No tunnel (local only)</source>
        <translation>Sem túnel (só local)</translation>
    </message>
    <message>
        <source>My own HTTPS URL (manual)</source>
        <translation>Minha própria URL HTTPS (manual)</translation>
    </message>
    <message>
        <source>Listener port</source>
        <translation>Porta do receptor</translation>
    </message>
    <message>
        <source>Tunnel</source>
        <translation>Túnel</translation>
    </message>
    <message>
        <source>Public URL</source>
        <translation>URL pública</translation>
    </message>
    <message>
        <source>Webhook token</source>
        <translation>Token do webhook</translation>
    </message>
    <message>
        <source>stored in the keychain; type to replace</source>
        <translation>guardado no chaveiro; digite para substituir</translation>
    </message>
    <message>
        <source>The built-in sandbox delivers its notifications straight to this computer: no tunnel and no token to enter.</source>
        <translation>O sandbox embutido entrega as notificações direto neste computador: sem túnel e sem token para digitar.</translation>
    </message>
    <message>
        <source>The service reaches the terminal through a public HTTPS URL. Save it in the merchant panel as the notification URL, with the token shown there.</source>
        <translation>O serviço chega ao terminal por uma URL HTTPS pública. Salve-a no painel do lojista como URL de notificação, com o token mostrado lá.</translation>
    </message>
</context>
<context>
    <name>argparse</name>
    <message>
        <source>usage: </source>
        <translation>uso: </translation>
    </message>
    <message>
        <source>positional arguments</source>
        <translation>argumentos posicionais</translation>
    </message>
    <message>
        <source>options</source>
        <translation>opções</translation>
    </message>
    <message>
        <source>show this help message and exit</source>
        <translation>mostra esta ajuda e sai</translation>
    </message>
    <message>
        <source>%(prog)s: error: %(message)s
</source>
        <translation>%(prog)s: erro: %(message)s
</translation>
    </message>
    <message>
        <source>argument %(argument_name)s: %(message)s</source>
        <translation>argumento %(argument_name)s: %(message)s</translation>
    </message>
    <message>
        <source>invalid choice: %(value)r (choose from %(choices)s)</source>
        <translation>opção inválida: %(value)r (escolha entre %(choices)s)</translation>
    </message>
    <message>
        <source>invalid %(type)s value: %(value)r</source>
        <translation>valor inválido para %(type)s: %(value)r</translation>
    </message>
    <message>
        <source>the following arguments are required: %s</source>
        <translation>faltam os argumentos obrigatórios: %s</translation>
    </message>
    <message>
        <source>unrecognized arguments: %s</source>
        <translation>argumentos desconhecidos: %s</translation>
    </message>
    <message>
        <source>expected one argument</source>
        <translation>esperava um valor</translation>
    </message>
    <message>
        <source>expected at most one argument</source>
        <translation>esperava no máximo um valor</translation>
    </message>
    <message>
        <source>expected at least one argument</source>
        <translation>esperava pelo menos um valor</translation>
    </message>
    <message>
        <source>expected %s argument</source>
        <translation>esperava %s valor</translation>
    </message>
    <message>
        <source>expected %s arguments</source>
        <translation>esperava %s valores</translation>
    </message>
    <message>
        <source>ambiguous option: %(option)s could match %(matches)s</source>
        <translation>opção ambígua: %(option)s pode ser %(matches)s</translation>
    </message>
    <message>
        <source>not allowed with argument %s</source>
        <translation>não é permitido junto com o argumento %s</translation>
    </message>
    <message>
        <source>one of the arguments %s is required</source>
        <translation>um dos argumentos %s é obrigatório</translation>
    </message>
    <message>
        <source>ignored explicit argument %r</source>
        <translation>argumento explícito ignorado: %r</translation>
    </message>
    <message>
        <source>unknown parser %(parser_name)r (choices: %(choices)s)</source>
        <translation>comando desconhecido %(parser_name)r (opções: %(choices)s)</translation>
    </message>
    <message>
        <source>can&apos;t open &apos;%(filename)s&apos;: %(error)s</source>
        <translation>não foi possível abrir &apos;%(filename)s&apos;: %(error)s</translation>
    </message>
</context>
</TS>
